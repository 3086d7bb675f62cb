import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);
const packageDir = path.resolve(__dirname, '..');
const tsc = path.resolve(packageDir, '../../node_modules/typescript/bin/tsc');

/** Runs ESM in plain Node (no TypeScript loader) from the package's directory, so `@worktrack/sdk` resolves through its exports. */
async function nodeEval(source: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], { cwd: packageDir });
  return JSON.parse(stdout) as unknown;
}

describe('pnpm --filter @worktrack/sdk build', () => {
  beforeAll(async () => {
    await rm(path.join(packageDir, 'dist'), { recursive: true, force: true });
    await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: packageDir });
  }, 120_000);

  it('emits plain JS with type declarations for both entries of the exports map', async () => {
    const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    for (const entry of ['.', './webhooks']) {
      const target = manifest.exports[entry] as { types: string; default: string };
      expect(existsSync(path.join(packageDir, target.default))).toBe(true);
      expect(existsSync(path.join(packageDir, target.types))).toBe(true);
    }
    expect(await readFile(path.join(packageDir, 'dist/index.d.ts'), 'utf8')).toContain('createClient');
    expect(await readFile(path.join(packageDir, 'dist/generated/openapi.d.ts'), 'utf8')).toContain('export interface paths');
  });

  it('runs in plain Node: a POST through the built client carries an Idempotency-Key, and the built verifier checks a signature', async () => {
    const result = await nodeEval(`
      import { createHmac } from 'node:crypto';
      import { createClient } from '@worktrack/sdk';
      import { verifyWebhook } from '@worktrack/sdk/webhooks';
      const sent = [];
      const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'tk_test_x', fetch: async (request) => {
        sent.push(request.headers.get('idempotency-key'));
        return new Response(JSON.stringify({ id: 'prj_1' }), { status: 201, headers: { 'Content-Type': 'application/json' } });
      } });
      const { data } = await sdk.POST('/v1/projects', { body: { name: 'Built' } });
      const body = '{"event":"project.created"}';
      const headers = { 'x-service-signature': 'sha256=' + createHmac('sha256', 'secret-123').update(body).digest('hex') };
      const verified = verifyWebhook(body, headers, 'secret-123');
      console.log(JSON.stringify({ data, key: sent[0], scheme: verified.scheme, event: verified.payload.event }));
    `);
    expect(result).toEqual({ data: { id: 'prj_1' }, key: expect.stringMatching(/^[0-9a-f-]{36}$/), scheme: 'x-service-signature', event: 'project.created' });
  });

  it('bundles the client entry for browsers: no Node built-in is imported', async () => {
    const bundled = await build({
      entryPoints: [path.join(packageDir, 'dist/index.js')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(bundled.errors).toEqual([]);
    expect(bundled.outputFiles[0]!.text).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });
});
