/** A mistake in the command line: printed as one line (and the usage), never as a stack trace. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** node:util's parseArgs refusing the command line (an unknown option, a missing value, an extra argument). */
export function isArgumentError(err: unknown): err is Error {
  return err instanceof Error && String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_');
}
