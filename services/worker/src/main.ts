import { letYoungGenerationGrow } from '@worktrack/config/young-generation';
import './tracing';
import { createLogger, DERIVED_SECRETS_KEY_WARNING, exitOnStartupError, loadWorkerConfig, onShutdown } from '@worktrack/config';
import { checkDatabase } from '@worktrack/db';
import { stopTracing } from '@worktrack/telemetry';
import { startWorker } from './compose';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger(config.logLevel, 'worker', config.logFormat);
  if (config.secretsKeyDerived) logger.warn(DERIVED_SECRETS_KEY_WARNING);
  try {
    await checkDatabase(config.databaseUrl);
    const worker = await startWorker(config, logger);
    letYoungGenerationGrow();
    logger.info({ concurrency: config.concurrency, health: worker.healthUrl }, 'worker started');
    onShutdown(logger, () => worker.close().then(stopTracing));
  } catch (err) {
    exitOnStartupError(err, { databaseUrl: config.databaseUrl, portSetting: 'WORKER_HEALTH_PORT (or WORKER_HEALTH_HOST)' });
  }
}

main().catch((err: unknown) => exitOnStartupError(err));
