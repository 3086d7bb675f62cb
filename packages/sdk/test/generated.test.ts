import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { client, createHarness } from '@test-support/api-harness.js';
import { DOCUMENT_SERVER_URL, generateFiles } from '../scripts/generated-files.js';

const packageDir = path.resolve(__dirname, '..');

/** The first line where two texts part, to point at what changed. */
function firstDifference(committed: string, generated: string): string {
  const [a, b] = [committed.split('\n'), generated.split('\n')];
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end>')}, generated ${JSON.stringify(b[at] ?? '<end>')}`;
}

describe('the generated SDK files', () => {
  it('are what the generator makes from the route table now (the SDK cannot drift from the API)', async () => {
    const stale: string[] = [];
    for (const [relative, generated] of Object.entries(await generateFiles())) {
      const committed = await readFile(path.join(packageDir, relative), 'utf8').catch(() => '');
      if (committed !== generated) stale.push(`${relative} (${firstDifference(committed, generated)})`);
    }
    if (stale.length > 0) {
      throw new Error(`Stale generated files: ${stale.join('; ')}. Run \`pnpm --filter @worktrack/sdk generate\` and commit the result.`);
    }
  }, 60_000);

  it('openapi.json is the document the API serves at /v1/openapi.json', async () => {
    const h = createHarness({ PUBLIC_BASE_URL: DOCUMENT_SERVER_URL });
    try {
      const served = await client(h.app).get('/v1/openapi.json').expect(200);
      const committed = JSON.parse(await readFile(path.join(packageDir, 'openapi.json'), 'utf8')) as unknown;
      expect(served.body).toEqual(committed);
    } finally {
      await h.close();
    }
  });
});
