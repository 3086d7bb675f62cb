import { exitOnStartupError, loadApiConfig, loadDotEnv } from '@worktrack/config';
import { createDatabase, unscopedData, type UnscopedData } from '@worktrack/db';
import { bootstrap, bootstrapUsage } from './cli/bootstrap';
import type { CommandContext } from './cli/command';
import { dashboardLink, dashboardLinkUsage } from './cli/dashboard-link';
import { keysCreate, keysCreateUsage } from './cli/keys-create';
import { orgsList, orgsListUsage } from './cli/orgs-list';
import { secretsReseal, secretsResealUsage } from './cli/secrets-reseal';
import { isArgumentError, UsageError } from './cli/usage-error';

/**
 * Operators' commands: every organization's data at once, through the unscoped handle. What an
 * operation of the API does runs through the pipeline as the operator (`cli/operator-caller.ts`:
 * `keys create`, `dashboard-link`); why the others do not, ARCHITECTURE.md says beside the pipeline.
 */
const commands: Record<string, { run: (data: UnscopedData, argv: string[], context: CommandContext) => Promise<void>; usage: string }> = {
  bootstrap: { run: bootstrap, usage: bootstrapUsage },
  'orgs list': { run: orgsList, usage: orgsListUsage },
  'keys create': { run: keysCreate, usage: keysCreateUsage },
  'dashboard-link': { run: dashboardLink, usage: dashboardLinkUsage },
  'secrets reseal': { run: secretsReseal, usage: secretsResealUsage },
};

const usage = `Usage:\n  ${Object.values(commands)
  .map((command) => command.usage)
  .join('\n  ')}`;

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
    await commands[name]!.run(unscopedData(database), argv.slice(name.split(' ').length), { config, database });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (isArgumentError(err)) throw new UsageError(err.message, commands[name]!.usage);
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
