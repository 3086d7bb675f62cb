import { execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { exitCode, spawnLogged } from './processes';

/*
 * Debian's PostgreSQL, PgBouncer and HAProxy run as plain processes on loopback ports of the
 * 29000-29999 range (docs/operations.md#postgresql-beyond-one-server), each stopped by the test that
 * started it. PostgreSQL and PgBouncer refuse to run as root: as root, they run as the postgres user.
 */

const PORTS = { from: 29_000, to: 29_999 };

/** A port of the range that was free a moment ago. */
export async function topologyPort(): Promise<number> {
  for (;;) {
    const port = PORTS.from + Math.floor(Math.random() * (PORTS.to - PORTS.from));
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup, postgres): Debian keeps them out of PATH. */
export function pgProgram(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', versions[0]!, 'bin', name);
}

function postgresUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const dirs: string[] = [];

/** A fresh directory the server processes may write, removed by removeServerDirs. */
export function serverDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `wt-${name}-`));
  dirs.push(dir);
  const user = postgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Runs a program as the servers' user and waits for it; throws with its output if it fails. */
export function runAsServerUser(program: string, args: string[]): string {
  const user = postgresUser();
  return execFileSync(program, args, { encoding: 'utf8', stdio: 'pipe', cwd: tmpdir(), ...(user && { uid: user.uid, gid: user.gid }) });
}

export type Server = ChildProcess & { output: () => string };

function spawnAsServerUser(program: string, args: string[]): Server {
  const user = postgresUser();
  return spawnLogged([program, ...args], { cwd: tmpdir(), env: process.env, ...(user && { uid: user.uid, gid: user.gid }) });
}

/** Polls until a plain connection to the port runs `SELECT 1`. */
export async function waitForPostgres(port: number, database = 'postgres', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`nothing answered on port ${port}: ${String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Resolves once Postgres answers on the port (through the server); a server that does not is stopped. */
async function startedWhenAnswering(server: Server, port: number): Promise<Server> {
  try {
    await waitForPostgres(port);
    return server;
  } catch (err) {
    server.kill('SIGKILL');
    throw new Error(`${String(err)}\n${server.output()}`);
  }
}

/** `postgres` on a data directory: loopback only, fsync off (a test's data), `settings` as `-c` options. */
export async function startPostgres(dataDir: string, port: number, settings: Record<string, string> = {}): Promise<Server> {
  const options = { listen_addresses: '127.0.0.1', unix_socket_directories: dataDir, fsync: 'off', ...settings };
  return startedWhenAnswering(
    spawnAsServerUser(pgProgram('postgres'), ['-D', dataDir, '-p', String(port), ...Object.entries(options).flatMap(([k, v]) => ['-c', `${k}=${v}`])]),
    port,
  );
}

/** A new cluster whose superuser is `postgres`, trusted on loopback (replication included). */
export function initCluster(name: string): string {
  const dataDir = path.join(serverDir(name), 'data');
  // UTF-8 whatever the environment's locale: with none (env -i, cron, containers) initdb would make a
  // SQL_ASCII cluster, where the schema's ICU collation does not exist.
  runAsServerUser(pgProgram('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  return dataDir;
}

/** PgBouncer in transaction pooling mode in front of 127.0.0.1:`targetPort`, `poolSize` server connections per database. */
export async function startPgBouncer(port: number, targetPort: number, poolSize: number): Promise<Server> {
  const dir = serverDir('pgbouncer');
  writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=127.0.0.1 port=${targetPort}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/users.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = ${poolSize}
max_client_conn = 500
ignore_startup_parameters = extra_float_digits,options
`,
  );
  return startedWhenAnswering(spawnAsServerUser('pgbouncer', [path.join(dir, 'pgbouncer.ini')]), port);
}

/**
 * HAProxy forwarding TCP to the first server that passes its check, the others as backups: the
 * address the services use moves when the first fails. Sessions to a server marked down are closed.
 */
export async function startHaproxy(port: number, serverPorts: number[]): Promise<Server> {
  const dir = serverDir('haproxy');
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 1s
  timeout client 5m
  timeout server 5m
  # A loaded machine takes more than the check interval to start a Postgres session.
  timeout check 3s
listen postgres
  bind 127.0.0.1:${port}
  option pgsql-check user postgres
  default-server inter 500ms fall 3 rise 2 on-marked-down shutdown-sessions
${serverPorts.map((p, i) => `  server pg${i} 127.0.0.1:${p} check${i > 0 ? ' backup' : ''}`).join('\n')}
`,
  );
  return startedWhenAnswering(spawnLogged(['haproxy', '-db', '-f', config], { cwd: dir, env: process.env }), port);
}

/** Removes the directories made by serverDir, once their servers have stopped. */
export function removeServerDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Sends the signal and waits for the process to exit. */
export async function stop(server: Server | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  server.kill(signal);
  await exitCode(server);
}
