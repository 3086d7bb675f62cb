import { parseArgs } from 'node:util';
import { Mode, type UnscopedData } from '@worktrack/db';
import { PERMISSIONS } from '../http/permissions';
import { issueApiKey } from '../modules/api-keys/issue-api-key';
import { UsageError } from './usage-error';

export const keysCreateUsage = `pnpm cli keys create --org ORG_ID --email EMAIL [--name NAME] [--mode live|test] [--permissions LIST] [--json]
    Creates an API key for a member of the organization; LIST is comma-separated permissions, or * (the default).`;

export async function keysCreate(data: UnscopedData, argv: string[]): Promise<void> {
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
  if (!(values.mode! in Mode)) throw new UsageError(`--mode must be one of ${Object.keys(Mode).join(', ')}`, keysCreateUsage);
  const permissions = values.permissions!.split(',').map((p) => p.trim());
  const unknown = permissions.filter((p) => p !== '*' && !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length > 0 || (permissions.includes('*') && permissions.length > 1)) {
    throw new UsageError(`--permissions must be * or a list of: ${PERMISSIONS.join(', ')}`, keysCreateUsage);
  }
  const [membership] = await data.membershipsOf(values.email, values.org);
  if (!membership) throw new UsageError(`${values.email} is not a member of organization ${values.org}`);

  const { record, key } = await issueApiKey(data.insertApiKey, {
    organizationId: values.org,
    userId: membership.userId,
    name: values.name!,
    mode: values.mode as Mode,
    permissions,
  });
  if (values.json) console.log(JSON.stringify({ ...record, key }));
  else
    console.log(
      `Key ${record.id} (${record.mode}, ${record.permissions.join(',')}) for ${membership.user.email}, role ${membership.role}:\n${key}\nShown once; store it now.`,
    );
}
