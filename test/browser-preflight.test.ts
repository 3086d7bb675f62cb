import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitCode, repoRoot } from '@test-support/processes';

/*
 * The front door of `pnpm test` on a machine without Chromium: a run that includes browser tests
 * stops within seconds with one line saying how to install it (test/sequencer.ts), and a run of
 * other tests goes on without it. Jest runs here as `pnpm test` runs it, with CHROMIUM_PATH
 * pointing nowhere; nothing installs anything. And when Chromium is there but will not start, the
 * browser tests fail and Jest still exits: they close what they started. The three runs go at once.
 */

const NOWHERE = '/nonexistent/chromium';

/** `pnpm test ...args`: the package script's command, with this Node. */
function pnpmTest(args: string[], env: NodeJS.ProcessEnv) {
  const script = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;
  const [node, ...nodeArgs] = script.split(' ');
  expect(node).toBe('node');
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return { child, out };
}

describe('pnpm test, without a working Chromium', () => {
  it.concurrent('stops a run with browser tests within seconds, with one line that says how to install it', async () => {
    const started = Date.now();
    const { child, out } = pnpmTest(['services/api/test/dashboard-e2e.test.ts'], { CHROMIUM_PATH: NOWHERE });
    expect(await exitCode(child, 15_000)).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(out.stdout).toBe('');
    const lines = out.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(NOWHERE);
    expect(lines[0]).toContain('apt-get install -y chromium');
  });

  it.concurrent('runs the other tests, which need no Chromium', async () => {
    const { child, out } = pnpmTest(['packages/webhooks/test/response-headers.test.ts'], { CHROMIUM_PATH: NOWHERE });
    expect(await exitCode(child, 60_000)).toBe(0);
    expect(out.stderr).not.toContain('apt-get');
    expect(out.stderr).toMatch(/Tests:\s+\d+ passed/);
  }, 70_000);

  it.concurrent('exits after the browser tests fail, when the Chromium there will not start', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wt-chromium-'));
    const broken = path.join(dir, 'chromium');
    writeFileSync(broken, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const { child, out } = pnpmTest(['services/api/test/dashboard-e2e.test.ts'], { CHROMIUM_PATH: broken });
    const code = await exitCode(child, 120_000);
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(out.stderr).toMatch(/Tests:\s+\d+ failed/);
    expect(out.stderr).not.toContain('Jest did not exit');
  }, 130_000);
});
