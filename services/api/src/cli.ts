import { exitOnStartupError, loadApiConfig, loadDotEnv, type ApiConfig } from '@worktrack/config';
import { createDb, unscopedData, type UnscopedData } from '@worktrack/db';
import { bootstrap, bootstrapUsage } from './cli/bootstrap';
import { dashboardLink, dashboardLinkUsage } from './cli/dashboard-link';
import { keysCreate, keysCreateUsage } from './cli/keys-create';
import { orgsList, orgsListUsage } from './cli/orgs-list';
import { secretsReseal, secretsResealUsage } from './cli/secrets-reseal';
import { UsageError } from './cli/usage-error';

/** Operators' commands: every organization's data at once, through the unscoped handle. */
const commands: Record<string, (data: UnscopedData, argv: string[], config: ApiConfig) => Promise<void>> = {
  bootstrap,
  'orgs list': orgsList,
  'keys create': keysCreate,
  'dashboard-link': dashboardLink,
  'secrets reseal': secretsReseal,
};

const usage = `Usage:\n  ${[bootstrapUsage, orgsListUsage, keysCreateUsage, dashboardLinkUsage, secretsResealUsage].join('\n  ')}`;

async function main(): Promise<void> {
  loadDotEnv();
  const argv = process.argv.slice(2);
  const name = Object.keys(commands).find((command) => command.split(' ').every((word, i) => argv[i] === word));
  if (!name) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  const config = loadApiConfig();
  const db = createDb(config.databaseUrl, { poolSize: 1 });
  try {
    await commands[name]!(unscopedData({ db }), argv.slice(name.split(' ').length), config);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    exitOnStartupError(err, { databaseUrl: config.databaseUrl });
  } finally {
    await db.$disconnect();
  }
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(err.usage ? `${err.message}\nUsage: ${err.usage}` : err.message);
    process.exit(2);
  }
  exitOnStartupError(err);
});
