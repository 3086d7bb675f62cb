import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runBundleDir } from './run-bundle';

export const repoRoot = path.resolve(__dirname, '..', '..');

/**
 * A port nothing listens on, for a service that must be unreachable: privileged and below the
 * ephemeral range that `freePort` draws from, so no test's server takes it meanwhile (a port found
 * free and let go can be taken by another file's server, and then answers).
 */
export const CLOSED_PORT = 1;

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a TypeScript entry point of the repository the way the package scripts do. */
export function runEntry(entry: string, args: string[], env: NodeJS.ProcessEnv): ReturnType<typeof spawnLogged> {
  return spawnLogged(['node', '--import', 'tsx', path.join(repoRoot, entry), ...args], { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
}

/** Runs a service as the image does, from the run's bundle (`api`, `worker` or `cli`). */
export function runBundled(service: 'api' | 'worker' | 'cli', args: string[], env: NodeJS.ProcessEnv): ReturnType<typeof spawnLogged> {
  const bundle = path.join(runBundleDir(), `${service}.js`);
  if (!existsSync(bundle)) throw new Error(`${bundle} was not built: test/sequencer.ts builds the bundle for runs whose files name the helpers that start it`);
  return spawnLogged(['node', bundle, ...args], { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
}

/** Runs a command (`node` is this Node) and keeps what it prints. */
export function spawnLogged(
  [program, ...args]: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number; detached?: boolean },
): ChildProcess & { output: () => string; errorOutput: () => string } {
  const child = spawn(program === 'node' ? process.execPath : program!, args, options);
  let output = '';
  let errorOutput = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    errorOutput += chunk.toString();
  });
  return Object.assign(child, { output: () => output, errorOutput: () => errorOutput });
}

/**
 * Resolves with the exit code once the process has exited and its output has been read to the end
 * ('close': on a busy machine 'exit' can come before the last of stderr); a process still running
 * after the timeout is killed.
 */
export async function exitCode(child: ChildProcess, timeoutMs = 20_000): Promise<number | null> {
  const read = [child.stdout, child.stderr].every((stream) => stream === null || stream.closed);
  if ((child.exitCode !== null || child.signalCode !== null) && read) return child.exitCode;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return code;
}

/** Polls an HTTP URL until it answers 200, failing after the timeout. */
export async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
