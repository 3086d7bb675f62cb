import { ApiError } from '../http/errors';

/** An operation's refusal, shown on the form that asked for it. */
export interface Problem {
  status: number;
  message: string;
  /** The API's param: the form field it names. */
  param: string | null;
}

/** A hint to whoever runs the service (`; set WEBHOOK_ALLOWED_HOSTS to ...`): not the person's to act on. */
const OPERATOR_HINT = /; set [A-Z][A-Z0-9_]+ [^;]*/g;

/** The refusal of an operation the role does not allow at all (the pipeline's assertPermission), which names the permission. */
const lacksPermission = (message: string, status: number) => status === 403 && /\b[a-z_]+:(read|write)\b/.test(message);

/**
 * The API's refusals speak to a developer holding a key; a person in the dashboard holds a role.
 * What names a permission or a key is said in their terms, and a hint naming a setting is left out.
 */
export function inPeoplesWords(message: string, status: number): string {
  if (lacksPermission(message, status)) return 'Your role does not allow this. An admin of your organization can do it.';
  const role = /cannot grant the (\w+) role/.exec(message);
  if (role) return `You cannot give the ${role[1]} role: it has rights your own role lacks.`;
  return message.replace(OPERATOR_HINT, '');
}

/**
 * The refusal of a client mistake (4xx); anything else is not the form's to show and is thrown on, as
 * is an action the role does not allow: its form is not shown to that role (a page loaded before the
 * role changed), so the refusal is a page of its own.
 */
export function problemOf(err: unknown): Problem {
  if (err instanceof ApiError && err.status < 500 && !lacksPermission(err.message, err.status))
    return { status: err.status, message: inPeoplesWords(err.message, err.status), param: err.param };
  throw err;
}
