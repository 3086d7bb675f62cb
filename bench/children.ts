// Baseline processes: forked like the services, pinned to the service's CPU when asked.
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

export interface Child {
  pid: number;
  stop(): Promise<void>;
}

/** Forks a bench/ script, waits for its 'ready' message, pins it to BENCH_SERVER_CPU if set. */
export async function startChild(script: string, env: NodeJS.ProcessEnv): Promise<Child> {
  const child = fork(path.join(__dirname, script), [], { env: { ...process.env, ...env }, execArgv: ['--import', 'tsx'] });
  await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error(`${script} exited at start`)))]);
  if (process.env.BENCH_SERVER_CPU) execFileSync('taskset', ['-a', '-p', '-c', process.env.BENCH_SERVER_CPU, String(child.pid)]);
  return {
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
