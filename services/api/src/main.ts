import { letYoungGenerationGrowUnderLoad } from '@worktrack/config/young-generation';
import './tracing';
import { createLogger, DERIVED_SECRETS_KEY_WARNING, exitOnStartupError, loadApiConfig, onShutdown } from '@worktrack/config';
import { checkDatabase } from '@worktrack/db';
import { stopTracing } from '@worktrack/telemetry';
import { startApi } from './compose';

async function main(): Promise<void> {
  const config = loadApiConfig();
  const logger = createLogger(config.logLevel, 'api', config.logFormat);
  if (config.cursorSecretEphemeral)
    logger.warn('CURSOR_SECRET is unset: list cursors are sealed with a key made at boot, so they stop working on a restart and on other replicas');
  if (config.secretsKeyDerived) logger.warn(DERIVED_SECRETS_KEY_WARNING);
  if (config.publicBaseUrlWarning) logger.warn(config.publicBaseUrlWarning);
  try {
    await checkDatabase(config.databaseUrl);
    const api = await startApi(config, logger);
    letYoungGenerationGrowUnderLoad();
    logger.info({ url: api.url }, 'api listening');
    onShutdown(logger, () => api.close().then(stopTracing));
  } catch (err) {
    exitOnStartupError(err, { databaseUrl: config.databaseUrl, portSetting: 'PORT (or HOST)' });
  }
}

main().catch((err: unknown) => exitOnStartupError(err));
