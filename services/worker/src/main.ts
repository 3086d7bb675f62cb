import { createLogger, loadDotEnv, loadWorkerConfig, onShutdown } from '@worktrack/config';
import { startWorker } from './compose';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadWorkerConfig();
  const logger = createLogger(config.logLevel, 'worker');
  const worker = await startWorker(config, logger);
  logger.info({ concurrency: config.concurrency, health: worker.healthUrl }, 'worker started');
  onShutdown(logger, worker.close);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
