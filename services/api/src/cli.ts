import { parseArgs } from 'node:util';
import { loadApiConfig, loadDotEnv } from '@worktrack/config';
import { createDb, Plan } from '@worktrack/db';
import { bootstrapOrganization } from './modules/organizations/bootstrap-organization';

const usage = `Usage:
  pnpm cli bootstrap --org NAME --email EMAIL [--plan free|pro|enterprise] [--daily-quota N] [--json]
    Creates an organization, its admin user, and a live and a test API key with all permissions.`;

async function bootstrap(argv: string[]): Promise<void> {
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
  if (!values.org || !values.email) throw new Error(`--org and --email are required\n${usage}`);
  if (!(values.plan! in Plan)) throw new Error(`--plan must be one of ${Object.keys(Plan).join(', ')}`);
  const dailyQuota = values['daily-quota'] === undefined ? null : Number(values['daily-quota']);
  if (dailyQuota !== null && !(Number.isInteger(dailyQuota) && dailyQuota > 0)) throw new Error('--daily-quota must be a positive integer');

  const db = createDb(loadApiConfig().databaseUrl, { poolSize: 1 });
  try {
    const result = await bootstrapOrganization(db, {
      name: values.org,
      email: values.email,
      plan: values.plan as Plan,
      dailyQuota,
    });
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      console.log(`Organization ${result.organization.id} (${result.organization.name}, ${result.organization.plan})`);
      console.log(`Admin user   ${result.user.id} <${result.user.email}>`);
      console.log(`Live key     ${result.liveKey}`);
      console.log(`Test key     ${result.testKey}`);
      console.log('Keys are shown once; store them now.');
    }
  } finally {
    await db.$disconnect();
  }
}

async function main(): Promise<void> {
  loadDotEnv();
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'bootstrap') return bootstrap(rest);
  console.error(usage);
  process.exitCode = 2;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
