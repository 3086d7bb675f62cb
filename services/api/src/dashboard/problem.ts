import { ApiError } from '../http/errors';

/** An operation's refusal, shown on the form that asked for it. */
export interface Problem {
  status: number;
  message: string;
  /** The API's param: the form field it names. */
  param: string | null;
}

/** The refusal of a client mistake (4xx); anything else is not the form's to show and is thrown on. */
export function problemOf(err: unknown): Problem {
  if (err instanceof ApiError && err.status < 500) return { status: err.status, message: err.message, param: err.param };
  throw err;
}
