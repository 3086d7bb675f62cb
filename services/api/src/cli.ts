import { exitOnStartupError, loadApiConfig, loadDotEnv } from '@worktrack/config';
import { createDatabase, unscopedData, type UnscopedData } from '@worktrack/db';
import { bootstrap, bootstrapUsage } from './cli/bootstrap';
import type { CommandContext } from './cli/command';
import { dashboardLink, dashboardLinkUsage } from './cli/dashboard-link';
import { keysCreate, keysCreateUsage } from './cli/keys-create';
import { orgsList, orgsListUsage } from './cli/orgs-list';
import { secretsReseal, secretsResealUsage } from './cli/secrets-reseal';
import { UsageError } from './cli/usage-error';

/**
 * Operators' commands: every organization's data at once, through the unscoped handle. What an
 * operation of the API does runs through the pipeline as the operator (`cli/operator-caller.ts`:
 * `keys create`, `dashboard-link`); why the others do not, ARCHITECTURE.md says beside the pipeline.
 */
const commands: Record<string, (data: UnscopedData, argv: string[], context: CommandContext) => Promise<void>> = {
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
  const database = createDatabase(config.databaseUrl, { poolSize: 2, pooler: config.databasePooler });
  try {
    await commands[name]!(unscopedData(database), argv.slice(name.split(' ').length), { config, database });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    exitOnStartupError(err, { databaseUrl: config.databaseUrl });
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(err.usage ? `${err.message}\nUsage: ${err.usage}` : err.message);
    process.exit(2);
  }
  exitOnStartupError(err);
});
