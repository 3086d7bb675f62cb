import './tracing';
import { createLogger, DERIVED_SECRETS_KEY_WARNING, describeStartupError, loadApiConfig, onShutdown } from '@worktrack/config';
import { stopTracing } from '@worktrack/telemetry';
import { startApi } from './compose';

async function main(): Promise<void> {
  const config = loadApiConfig();
  const logger = createLogger(config.logLevel, 'api', config.logFormat);
  if (config.cursorSecretEphemeral)
    logger.warn('CURSOR_SECRET is unset: list cursors are sealed with a key made at boot, so they stop working on a restart and on other replicas');
  if (config.secretsKeyDerived) logger.warn(DERIVED_SECRETS_KEY_WARNING);
  try {
    const api = await startApi(config, logger);
    logger.info({ url: api.url }, 'api listening');
    onShutdown(logger, () => api.close().then(stopTracing));
  } catch (err) {
    console.error(describeStartupError(err, { databaseUrl: config.databaseUrl, portSetting: 'PORT (or HOST)' }));
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(describeStartupError(err));
  process.exit(1);
});
