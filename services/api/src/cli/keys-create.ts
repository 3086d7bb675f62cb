import { parseArgs } from 'node:util';
import type { UnscopedData } from '@worktrack/db';
import { ApiError } from '../http/errors';
import { createApiKey } from '../modules/api-keys/create-api-key';
import { callOperation } from '../pipeline';
import type { CommandContext } from './command';
import { operatorCaller } from './operator-caller';
import { UsageError } from './usage-error';

export const keysCreateUsage = `pnpm cli keys create --org ORG_ID --email EMAIL [--name NAME] [--mode live|test] [--permissions LIST] [--json]
    Creates an API key for a member of the organization; LIST is comma-separated permissions, or * (the default).`;

/** `POST /v1/api-keys` for the member, through the pipeline: the API's validation of the name, mode and permissions. */
export async function keysCreate(data: UnscopedData, argv: string[], { database, config }: CommandContext): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string', default: 'CLI key' },
      mode: { type: 'string', default: 'live' },
      permissions: { type: 'string', default: '*' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.org || !values.email) throw new UsageError('--org and --email are required', keysCreateUsage);
  const [membership] = await data.membershipsOf(values.email, values.org);
  if (!membership) throw new UsageError(`${values.email} is not a member of organization ${values.org}`);

  const body = { name: values.name, mode: values.mode, permissions: values.permissions!.split(',').map((p) => p.trim()) };
  const created = await callOperation(createApiKey, operatorCaller({ unscoped: data, database, config }, membership), { body }).catch((err: unknown) => {
    throw err instanceof ApiError ? new UsageError(`--${err.param ?? 'permissions'}: ${err.message}`, keysCreateUsage) : err;
  });
  if (values.json) console.log(JSON.stringify(created));
  else
    console.log(
      `Key ${created.id} (${created.mode}, ${created.permissions.join(',')}) for ${membership.user.email}, role ${membership.role}:\n${created.key}\nShown once; store it now.`,
    );
}
