/** Commands whose first arguments are a script (or its digest) and a count of the keys that follow. */
const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/**
 * A Redis span's statement: the command and the key it names (a script's keys), never its values:
 * the default statement of a script call holds the whole script and its arguments, a job's payload
 * among them, serialised for every call.
 */
export function redisStatement(command: string, args: readonly unknown[]): string {
  const keys = SCRIPT_COMMANDS.has(command.toLowerCase()) ? args.slice(2, 2 + Number(args[1] ?? 0)) : args.slice(0, 1);
  return [command, ...keys.filter((key) => typeof key === 'string' || typeof key === 'number')].join(' ');
}
