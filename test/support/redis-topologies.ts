import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { waitFor } from './wait-for';

/**
 * Redis topologies started from Debian's packages (`redis-server`, `redis-sentinel`, `redis-cli`),
 * as plain processes on loopback ports the caller picks, in a directory of their own that `stop`
 * removes. Nothing persists: no RDB, no AOF.
 */

const HOST = '127.0.0.1';

/** Polls a check that may throw (a server not up yet) until it answers. */
const until = <T>(check: () => Promise<T | undefined>) => waitFor(() => check().catch(() => undefined), { timeoutMs: 20_000, intervalMs: 50 });

/** One command to one server, on a connection of its own that gives up at once. */
export async function command(port: number, ...args: string[]): Promise<unknown> {
  const client = new IORedis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(args[0]!, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

class Processes {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'worktrack-redis-'));
  readonly byPort = new Map<number, ChildProcess>();

  /**
   * Starts a server on a port of this suite's own range. A server left there by an earlier run that
   * was killed before it could stop its own is shut down first.
   */
  async start(port: number, program: string, args: string[]): Promise<void> {
    await command(port, 'SHUTDOWN', 'NOSAVE').catch(() => undefined);
    await until(async () => ((await command(port, 'PING').catch(() => 'free')) === 'free' ? true : undefined));
    const child = spawn(program, args, { cwd: this.dir, stdio: 'ignore' });
    this.byPort.set(port, child);
    await until(async () => ((await command(port, 'PING')) === 'PONG' ? true : undefined));
  }

  get pids(): number[] {
    return [...this.byPort.values()].map((child) => child.pid!);
  }

  kill(port: number): void {
    this.byPort.get(port)?.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.byPort.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const serverArgs = (port: number) => ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'];

export interface ServerTopology {
  /** For REDIS_URL. */
  url: string;
  /** The server's process (what a benchmark reads the CPU time of). */
  pids: number[];
  stop(): Promise<void>;
}

/** One Redis server on `port`. */
export async function startServerTopology(port: number): Promise<ServerTopology> {
  const processes = new Processes();
  await processes.start(port, 'redis-server', serverArgs(port)).catch(async (err: unknown) => {
    await processes.stop();
    throw err;
  });
  return { url: `redis://${HOST}:${port}`, pids: processes.pids, stop: () => processes.stop() };
}

export interface SentinelTopology {
  masterName: string;
  /** For REDIS_SENTINELS. */
  sentinels: string;
  /** The port of the server Sentinel names master now. */
  masterPort(): Promise<number>;
  /** SIGKILLs a server. */
  kill(port: number): void;
  stop(): Promise<void>;
}

/**
 * A master on `base`, replicas on base+1 and base+2, and three Sentinels on base+10..12 watching it
 * (quorum 2, the master down after `downAfterMs` without an answer).
 */
export async function startSentinelTopology(base: number, { masterName = 'worktrack', downAfterMs = 5_000 } = {}): Promise<SentinelTopology> {
  const processes = new Processes();
  const sentinelPorts = [base + 10, base + 11, base + 12];
  try {
    await processes.start(base, 'redis-server', serverArgs(base));
    for (const port of [base + 1, base + 2]) await processes.start(port, 'redis-server', [...serverArgs(port), '--replicaof', HOST, String(base)]);
    await until(async () => {
      const info = String(await command(base, 'INFO', 'replication'));
      return (info.match(/state=online/g) ?? []).length === 2 ? true : undefined;
    });
    for (const port of sentinelPorts) {
      // Each Sentinel rewrites its own configuration file.
      const file = path.join(processes.dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `sentinel monitor ${masterName} ${HOST} ${base} 2`,
          `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
          `sentinel failover-timeout ${masterName} 20000`,
          `sentinel parallel-syncs ${masterName} 2`,
        ].join('\n'),
      );
      await processes.start(port, 'redis-sentinel', [file]);
    }
    await until(async () => {
      const [master] = (await command(sentinelPorts[0]!, 'SENTINEL', 'MASTERS')) as string[][];
      const field = (name: string) => Number(master![master!.indexOf(name) + 1]);
      return field('num-other-sentinels') === 2 && field('num-slaves') === 2 ? true : undefined;
    });
  } catch (err) {
    await processes.stop();
    throw err;
  }
  return {
    masterName,
    sentinels: sentinelPorts.map((port) => `${HOST}:${port}`).join(','),
    async masterPort() {
      const [, port] = (await command(sentinelPorts[0]!, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[];
      return Number(port);
    },
    kill: (port) => processes.kill(port),
    stop: () => processes.stop(),
  };
}

export interface ClusterTopology {
  /** For REDIS_CLUSTER_NODES. */
  nodes: string;
  ports: number[];
  /** The masters' processes. */
  pids: number[];
  stop(): Promise<void>;
}

/**
 * The cluster bus of a node: beside it in the caller's range. Redis's default, port + 10000, lands in
 * the kernel's ephemeral ports (32768-60999), where any client connection of a parallel test may
 * already hold it, and the node then fails to start.
 */
const CLUSTER_BUS_OFFSET = 50;

/** A Redis Cluster of three masters on base..base+2 (cluster bus on base+50..base+52), every slot covered. */
export async function startClusterTopology(base: number): Promise<ClusterTopology> {
  const processes = new Processes();
  const ports = [base, base + 1, base + 2];
  try {
    for (const port of ports)
      await processes.start(port, 'redis-server', [
        ...serverArgs(port),
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(port + CLUSTER_BUS_OFFSET),
        '--cluster-config-file',
        `nodes-${port}.conf`,
      ]);
    await new Promise<void>((resolve, reject) => {
      const create = spawn('redis-cli', ['--cluster', 'create', ...ports.map((port) => `${HOST}:${port}`), '--cluster-replicas', '0', '--cluster-yes'], {
        stdio: 'ignore',
      });
      create.on('error', reject);
      create.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redis-cli --cluster create exited with ${code}`))));
    });
    await until(async () => {
      const states = await Promise.all(ports.map(async (port) => String(await command(port, 'CLUSTER', 'INFO'))));
      return states.every((info) => info.includes('cluster_state:ok')) ? true : undefined;
    });
  } catch (err) {
    await processes.stop();
    throw err;
  }
  return { nodes: ports.map((port) => `${HOST}:${port}`).join(','), ports, pids: processes.pids, stop: () => processes.stop() };
}
