import './tracing';
import { createLogger, DERIVED_SECRETS_KEY_WARNING, describeStartupError, loadWorkerConfig, onShutdown } from '@worktrack/config';
import { stopTracing } from '@worktrack/telemetry';
import { startWorker } from './compose';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger(config.logLevel, 'worker', config.logFormat);
  if (config.secretsKeyDerived) logger.warn(DERIVED_SECRETS_KEY_WARNING);
  try {
    const worker = await startWorker(config, logger);
    logger.info({ concurrency: config.concurrency, health: worker.healthUrl }, 'worker started');
    onShutdown(logger, () => worker.close().then(stopTracing));
  } catch (err) {
    console.error(describeStartupError(err, { databaseUrl: config.databaseUrl, portSetting: 'WORKER_HEALTH_PORT (or WORKER_HEALTH_HOST)' }));
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(describeStartupError(err));
  process.exit(1);
});
