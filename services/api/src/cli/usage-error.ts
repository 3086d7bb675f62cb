/** A mistake in the command line: printed as one line (and the usage), never as a stack trace. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}
