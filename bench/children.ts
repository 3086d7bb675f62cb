// Bench processes: forked like the services; baselines pinned to the service's CPU when asked.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

export interface Child {
  pid: number;
  process: ChildProcess;
  /** The first message the script sent, once it was ready. */
  ready: unknown;
  stop(): Promise<void>;
}

/**
 * Forks a bench/ script and waits for its first message. With `pin` (baselines, which stand in for a
 * service), it then runs on BENCH_SERVER_CPU if set; otherwise it stays on the bench's own CPU.
 */
export async function startChild(script: string, env: NodeJS.ProcessEnv, { pin = true }: { pin?: boolean } = {}): Promise<Child> {
  const child = fork(path.join(__dirname, script), [], { env: { ...process.env, ...env }, execArgv: ['--import', 'tsx'] });
  const [ready] = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error(`${script} exited at start`)))]);
  if (pin && process.env.BENCH_SERVER_CPU) execFileSync('taskset', ['-a', '-p', '-c', process.env.BENCH_SERVER_CPU, String(child.pid)]);
  return {
    pid: child.pid!,
    process: child,
    ready,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
