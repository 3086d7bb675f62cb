import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitCode, freePort, repoRoot, runEntry, spawnLogged, waitForHttp } from '@test-support/processes';

/** pnpm's own script when the tests run under it (`pnpm test`), else the one on PATH. */
const pnpmCli = () => process.env.npm_execpath ?? execFileSync('sh', ['-c', 'command -v pnpm']).toString().trim();

describe('shipped entry points', () => {
  it('`pnpm cli bootstrap --json` prints an organization whose key works against `pnpm start`, which a Ctrl-C stops with exit code 0', async () => {
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
    const storeDir = mkdtempSync(path.join(tmpdir(), 'wt-s3-'));
    // Through pnpm, in a process group of its own, as a terminal runs it.
    const service = spawnLogged(['node', pnpmCli(), 'start'], {
      cwd: repoRoot,
      detached: true,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        WORKER_HEALTH_PORT: String(healthPort),
        S3_EMBEDDED_PORT: String(s3Port),
        S3_EMBEDDED_DIR: storeDir,
        REDIS_PREFIX: `wt-test-start-${Date.now()}`,
      },
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000).catch((err: Error) => {
        throw new Error(`${err.message}; pnpm start printed:\n${service.output()}`);
      });
      await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 60_000);
      const res = await fetch(`http://127.0.0.1:${port}/v1/projects`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${created.liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'From the CLI key' }),
      });
      expect(res.status).toBe(201);
      // Ctrl-C: the terminal sends SIGINT to the whole foreground group (pnpm, the script, the services).
      process.kill(-service.pid!, 'SIGINT');
      expect(await exitCode(service)).toBe(0);
      expect(service.output()).not.toContain('ELIFECYCLE');
    } finally {
      if (service.exitCode === null) process.kill(-service.pid!, 'SIGKILL');
      rmSync(storeDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('`pnpm cli` refuses bad arguments with a message and exit code 2', async () => {
    const cli = runEntry('services/api/src/cli.ts', ['bootstrap', '--org', 'Acme'], {});
    // An option the command does not know: its usage, not node:util's stack trace.
    const unknown = runEntry('services/api/src/cli.ts', ['keys', 'create', '--help'], {});
    expect(await exitCode(cli)).toBe(2);
    expect(cli.output()).toContain('--org and --email are required');
    expect(await exitCode(unknown)).toBe(2);
    expect(unknown.output().trimEnd().split('\n')).toEqual([
      "Unknown option '--help'",
      expect.stringMatching(/^Usage: pnpm cli keys create --org ORG_ID --email EMAIL /),
      expect.stringMatching(/^ {4}Creates an API key/),
    ]);
  }, 60_000);
});
