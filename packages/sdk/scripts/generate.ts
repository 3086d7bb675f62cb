/**
 * `pnpm --filter @worktrack/sdk generate`: writes openapi.json and src/generated/openapi.ts from the
 * API's route definitions. `--check` writes nothing and exits 1 when a committed file is stale.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateFiles } from './generated-files.js';

const packageDir = path.resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');

const files = await generateFiles();
let stale = 0;
for (const [relative, contents] of Object.entries(files)) {
  const target = path.join(packageDir, relative);
  const current = await readFile(target, 'utf8').catch(() => null);
  if (current === contents) {
    console.log(`unchanged ${relative}`);
    continue;
  }
  if (check) {
    stale += 1;
    console.error(`stale     ${relative}`);
    continue;
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, contents);
  console.log(`wrote     ${relative}`);
}
if (stale > 0) {
  console.error('Run `pnpm --filter @worktrack/sdk generate` and commit the result.');
  process.exitCode = 1;
}
