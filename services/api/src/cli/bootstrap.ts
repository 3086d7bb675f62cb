import { parseArgs } from 'node:util';
import Joi from 'joi';
import { Plan, type UnscopedData } from '@worktrack/db';
import { bootstrapOrganization } from '../modules/organizations/bootstrap-organization';
import { UsageError } from './usage-error';

export const bootstrapUsage = `pnpm cli bootstrap --org NAME --email EMAIL [--plan free|pro|enterprise] [--daily-quota N] [--json]
    Creates an organization, its admin user, and a live and a test API key with all permissions.`;

const email = Joi.string().email({ tlds: false }).max(254);

export async function bootstrap(data: UnscopedData, argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string', default: 'free' },
      'daily-quota': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const name = values.org?.trim();
  if (!name || !values.email) throw new UsageError('--org and --email are required', bootstrapUsage);
  if (email.validate(values.email).error) throw new UsageError(`--email ${values.email} is not an email address`, bootstrapUsage);
  if (!(values.plan! in Plan)) throw new UsageError(`--plan must be one of ${Object.keys(Plan).join(', ')}`, bootstrapUsage);
  const dailyQuota = values['daily-quota'] === undefined ? null : Number(values['daily-quota']);
  if (dailyQuota !== null && !(Number.isInteger(dailyQuota) && dailyQuota > 0))
    throw new UsageError('--daily-quota must be a positive integer', bootstrapUsage);
  const existing = await data.organizationNamed(name);
  if (existing) throw new UsageError(`An organization named "${existing.name}" already exists (${existing.id}); choose another name`);

  const result = await bootstrapOrganization(data, { name, email: values.email, plan: values.plan as Plan, dailyQuota });
  if (values.json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`Organization ${result.organization.id} (${result.organization.name}, ${result.organization.plan})`);
  console.log(`Admin user   ${result.user.id} <${result.user.email}>`);
  console.log(`Live key     ${result.liveKey}`);
  console.log(`Test key     ${result.testKey}`);
  console.log('Keys are shown once; store them now.');
}
