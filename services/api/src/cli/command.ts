import type { ApiConfig } from '@worktrack/config';
import type { Database } from '@worktrack/db';

/** What every command is given beside the unscoped handle and its arguments. */
export interface CommandContext {
  config: ApiConfig;
  /** The database the handle is on, for commands that run operations through the pipeline (`operator-caller.ts`). */
  database: Database;
}
