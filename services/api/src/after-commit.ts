import type { Logger } from '@worktrack/config';

/**
 * The one policy for what follows a commit (a queue or store call): best effort, logged, never an
 * error for a change that committed. The backstop is Postgres: the sweep republishes events, the
 * workers' claims find due deliveries with or without a job.
 */
export async function afterCommit(logger: Logger, what: string, effect: () => Promise<unknown>): Promise<void> {
  try {
    await effect();
  } catch (err) {
    logger.warn({ err }, `${what} deferred: committed, the sweep or the claims catch up`);
  }
}
