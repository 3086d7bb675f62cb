import type { Logger } from './logger';

/**
 * Calls back once this process's parent has exited. `pnpm run` does not forward SIGTERM to the
 * script it runs: it exits and leaves the script behind, re-parented. Checking the parent turns
 * that into a graceful stop instead of an orphan.
 */
export function onParentExit(callback: () => void, intervalMs = 500): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) callback();
  }, intervalMs).unref();
}

/**
 * On SIGTERM or SIGINT (or the parent's exit): run the drain, then exit 0; if it has not finished
 * within the deadline, exit 1 anyway so an orchestrator never waits forever.
 */
export const SHUTDOWN_DEADLINE_MS = 15_000;

export function onShutdown(logger: Logger, drain: () => Promise<void>, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
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
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  onParentExit(() => stop('parent exited'));
}
