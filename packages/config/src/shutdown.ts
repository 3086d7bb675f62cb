import type { Logger } from './logger';

/**
 * On SIGTERM or SIGINT: run the drain, then exit 0; if it has not finished within the
 * deadline, exit 1 anyway so an orchestrator never waits forever.
 */
export function onShutdown(logger: Logger, drain: () => Promise<void>, deadlineMs = 15_000): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error('shutdown deadline exceeded');
      process.exit(1);
    }, deadlineMs).unref();
    drain().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
