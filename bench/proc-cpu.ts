// CPU time read from /proc, so that a figure per request holds on a machine busy with other work:
// a process's user + system time, and that of the Postgres backends serving its connections.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Client } from 'pg';

const MICROS_PER_TICK = 1e6 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** User + system CPU time of a process in µs; 0 once it is gone. */
export function cpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
  } catch {
    return 0;
  }
}

interface TcpSocket {
  localPort: number;
  remotePort: number;
  listening: boolean;
}

/** Every TCP socket of the machine by inode, from /proc/net/tcp and tcp6. */
function tcpSockets(): Map<string, TcpSocket> {
  const sockets = new Map<string, TcpSocket>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
      sockets.set(cols[9]!, { localPort: port(cols[1]!), remotePort: port(cols[2]!), listening: cols[3] === '0A' });
    }
  }
  return sockets;
}

function socketInodes(pid: number): string[] {
  const inodes: string[] = [];
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.push(match[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // gone, or not ours to read
  }
  return inodes;
}

/** The process listening on a local TCP port. */
export function listeningPid(port: number): number {
  const sockets = tcpSockets();
  const listeners = new Set([...sockets].filter(([, s]) => s.listening && s.localPort === port).map(([inode]) => inode));
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && socketInodes(pid).some((inode) => listeners.has(inode))) return pid;
  }
  throw new Error(`no process listens on port ${port}`);
}

async function postgresBackends(pg: Client): Promise<{ pid: number; client_port: number | null }[]> {
  return (await pg.query<{ pid: number; client_port: number | null }>('SELECT pid, client_port FROM pg_stat_activity')).rows;
}

/** The Postgres backends serving a process's connections (matched by the client's port). */
async function backendsOf(pg: Client, pid: number, postgresPort: number): Promise<number[]> {
  const sockets = tcpSockets();
  const clientPorts = new Set(
    socketInodes(pid)
      .map((inode) => sockets.get(inode))
      .filter((s) => s !== undefined && s.remotePort === postgresPort)
      .map((s) => s!.localPort),
  );
  return (await postgresBackends(pg)).filter((row) => row.client_port !== null && clientPorts.has(row.client_port)).map((row) => row.pid);
}

export interface CpuUse {
  /** The Node processes' own time. */
  nodeUs: number;
  /** The time of the Postgres backends serving them. */
  postgresUs: number;
  /** The Redis servers' time (all of it: other clients count too). */
  redisUs: number;
}

export interface CpuSubjects {
  pg: Client;
  postgresPort: number;
  /** The Redis servers' processes (a cluster's masters). */
  redisPids: number[];
  /** The Node processes whose work is measured, with their Postgres backends. */
  pids: number[];
}

/** Starts a measuring window; `stop` gives the CPU time spent in it. */
export async function measureCpu({ pg, postgresPort, redisPids, pids }: CpuSubjects): Promise<{ stop(): Promise<CpuUse> }> {
  const sum = (list: number[]) => list.reduce((total, pid) => total + cpuMicros(pid), 0);
  // Every backend's time at the start, so a backend matched only at the end still counts its delta.
  const startBackends = new Map((await postgresBackends(pg)).map(({ pid }) => [pid, cpuMicros(pid)] as const));
  const start = { node: sum(pids), redis: sum(redisPids) };
  return {
    async stop() {
      const node = sum(pids) - start.node;
      const redis = sum(redisPids) - start.redis;
      const backends: number[] = [];
      // One query at a time: the client is one connection.
      for (const pid of pids) backends.push(...(await backendsOf(pg, pid, postgresPort)));
      // A backend opened during the window counts whole; one closed during it is lost (pools keep theirs open).
      const postgres = backends.reduce((total, pid) => total + cpuMicros(pid) - (startBackends.get(pid) ?? 0), 0);
      return { nodeUs: node, postgresUs: postgres, redisUs: redis };
    },
  };
}

/** Starts a window on one CPU; `stop` gives the share of it that CPU was busy (neither idle nor waiting on I/O). */
export function measureCpuBusy(cpu: number): { stop(): number } {
  const read = () => {
    const ticks = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((line) => line.startsWith(`cpu${cpu} `))!
      .trim()
      .split(/\s+/)
      .slice(1, 9) // user nice system idle iowait irq softirq steal; guest time is already in user
      .map(Number);
    return { idle: ticks[3]! + ticks[4]!, all: ticks.reduce((sum, n) => sum + n, 0) };
  };
  const start = read();
  return {
    stop() {
      const end = read();
      return 1 - (end.idle - start.idle) / (end.all - start.all);
    },
  };
}
