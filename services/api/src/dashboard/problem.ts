import { ApiError } from '../http/errors';

/** An operation's refusal, shown on the form that asked for it. */
export interface Problem {
  status: number;
  message: string;
  /** The API's param: the form field it names. */
  param: string | null;
}

/**
 * The API's refusals speak to a developer holding a key; a person in the dashboard holds a role.
 * What names a permission or a key is said in their terms.
 */
function inPeoplesWords(message: string, status: number): string {
  if (status === 403 && /\b[a-z_]+:(read|write)\b/.test(message)) return 'Your role does not allow this. An admin of your organization can do it.';
  const role = /cannot grant the (\w+) role/.exec(message);
  if (role) return `You cannot give the ${role[1]} role: it has rights your own role lacks.`;
  return message;
}

/** The refusal of a client mistake (4xx); anything else is not the form's to show and is thrown on. */
export function problemOf(err: unknown): Problem {
  if (err instanceof ApiError && err.status < 500) return { status: err.status, message: inPeoplesWords(err.message, err.status), param: err.param };
  throw err;
}
