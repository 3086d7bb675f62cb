import { createLogger, loadDotEnv, loadWorkerConfig, onShutdown } from '@worktrack/config';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadWorkerConfig();
  const logger = createLogger(config.logLevel, 'worker');
  logger.info('worker started');
  const idle = setInterval(() => undefined, 1 << 30);
  onShutdown(logger, async () => clearInterval(idle));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
