import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitCode, freePort, runEntry, waitForHttp } from '@test-support/processes';

describe('shipped entry points', () => {
  it('`pnpm cli bootstrap --json` prints an organization whose key works against `pnpm start`, which stops cleanly on SIGTERM', async () => {
    const cli = runEntry('services/api/src/cli.ts', ['bootstrap', '--org', 'Acme', '--email', `ops-${Date.now()}@example.com`, '--plan', 'pro', '--json'], {});
    expect(await exitCode(cli)).toBe(0);
    const created = JSON.parse(cli.output());
    expect(created).toEqual({
      organization: { id: expect.stringMatching(/^org_/), name: 'Acme', plan: 'pro' },
      user: { id: expect.stringMatching(/^usr_/), email: expect.stringMatching(/@example\.com$/) },
      liveKey: expect.stringMatching(/^tk_live_/),
      testKey: expect.stringMatching(/^tk_test_/),
    });

    const [port, healthPort, s3Port] = await Promise.all([freePort(), freePort(), freePort()]);
    const service = runEntry('scripts/start.ts', [], {
      PORT: String(port),
      WORKER_HEALTH_PORT: String(healthPort),
      S3_EMBEDDED_PORT: String(s3Port),
      S3_EMBEDDED_DIR: mkdtempSync(path.join(tmpdir(), 'wt-s3-')),
      REDIS_PREFIX: `wt-test-start-${Date.now()}`,
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000);
      await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 30_000);
      const res = await fetch(`http://127.0.0.1:${port}/v1/projects`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${created.liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'From the CLI key' }),
      });
      expect(res.status).toBe(201);
      service.kill('SIGTERM');
      expect(await exitCode(service)).toBe(0);
    } finally {
      service.kill('SIGKILL');
    }
  }, 60_000);

  it('`pnpm cli` refuses bad arguments with a message and exit code 2', async () => {
    const cli = runEntry('services/api/src/cli.ts', ['bootstrap', '--org', 'Acme'], {});
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toContain('--org and --email are required');
  });
});
