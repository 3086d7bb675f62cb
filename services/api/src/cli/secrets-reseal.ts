import { parseArgs } from 'node:util';
import { SecretBox, type UnscopedData } from '@worktrack/db';
import type { CommandContext } from './command';

export const secretsResealUsage = `pnpm cli secrets reseal [--json]
    Seals every webhook secret still in plaintext or under SECRETS_KEY_PREVIOUS under SECRETS_KEY
    (every API start does it too); exits 1 while a secret opens under neither key.`;

export async function secretsReseal(data: UnscopedData, argv: string[], { config }: CommandContext): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } } });
  const report = await data.resealWebhookSecrets(new SecretBox(config.secretsKeys));
  if (report.unreadable > 0) process.exitCode = 1;
  if (values.json) {
    console.log(JSON.stringify(report));
    return;
  }
  console.log(`Sealed ${report.sealed} plaintext secrets and resealed ${report.resealed} under SECRETS_KEY.`);
  if (report.unreadable > 0)
    console.log(
      `${report.unreadable} subscriptions have a secret that neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS opens: set the key they were sealed under as SECRETS_KEY_PREVIOUS.`,
    );
  else if (report.remaining > 0) console.log(`${report.remaining} subscriptions were being changed meanwhile: run it again.`);
  else console.log('Every webhook secret is sealed under SECRETS_KEY: SECRETS_KEY_PREVIOUS, if set, opens nothing any more and can be removed.');
}
