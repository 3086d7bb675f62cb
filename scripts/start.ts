// `pnpm start`: migrates, then runs the API and the worker in the foreground, and, when no
// S3_ENDPOINT is set, an embedded S3-compatible store on 127.0.0.1 so a new user needs nothing
// else. Ctrl-C / SIGTERM stops them all gracefully.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { exitOnStartupError, loadApiConfig, loadDotEnv, loadWorkerConfig, onParentExit } from '@worktrack/config';
import { startEmbeddedS3, type EmbeddedS3 } from '@worktrack/storage/embedded';

const root = path.resolve(__dirname, '..');

function migrate(): void {
  const { status } = spawnSync(process.execPath, [path.join(root, 'scripts/prisma.mjs'), 'deploy'], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}

/** With no S3_ENDPOINT, the API's settings already point at this embedded store. */
async function startEmbeddedStore(): Promise<EmbeddedS3 | null> {
  const { s3, s3Embedded } = loadApiConfig();
  if (!s3Embedded) return null;
  const store = await startEmbeddedS3({
    port: s3Embedded.port,
    directory: path.resolve(root, s3Embedded.directory),
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  return store;
}

/** What runs where, once, so a new user knows which address to open. */
function printSummary(store: EmbeddedS3 | null): void {
  const api = loadApiConfig();
  const worker = loadWorkerConfig();
  const apiUrl = `http://${api.host}:${api.port}`;
  const healthUrl = `http://${worker.healthHost}:${worker.healthPort}`;
  const rows = [
    ['API', `${apiUrl}/v1`],
    ['API reference', `${apiUrl}/docs (document: ${apiUrl}/v1/openapi.json)`],
    ['dashboard', `${apiUrl}/dashboard (sign in: pnpm cli dashboard-link --email EMAIL)`],
    ['API health, metrics', `${apiUrl}/readyz, ${apiUrl}/metrics`],
    ['worker health, metrics', `${healthUrl}/readyz, ${healthUrl}/metrics`],
    ['queue dashboard', `${healthUrl}/queues${worker.queueDashboardToken ? ' (QUEUE_DASHBOARD_TOKEN)' : ' (read-only)'}`],
    ['object store', store ? `${store.endpoint} (embedded, data in ${api.s3Embedded!.directory})` : `${api.s3.endpoint} (S3_ENDPOINT)`],
  ];
  console.log(rows.map(([what, where]) => `  ${what!.padEnd(24)}${where}`).join('\n'));
}

function run(entry: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, entry)], { stdio: 'inherit' });
}

async function main(): Promise<void> {
  loadDotEnv();
  migrate();
  const store = await startEmbeddedStore();
  printSummary(store);
  const children = [run('services/api/src/main.ts'), run('services/worker/src/main.ts')];

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGTERM'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  onParentExit(() => stop('SIGTERM'));

  const codes = await Promise.all(
    children.map(
      (child) =>
        new Promise<number>((resolve) =>
          child.on('exit', (code) => {
            stop('SIGTERM'); // one service down takes the others down: the supervisor restarts the set
            resolve(code ?? 1);
          }),
        ),
    ),
  );
  await store?.close();
  process.exit(Math.max(...codes));
}

// The only port this process opens itself is the embedded store's.
main().catch((err: unknown) => exitOnStartupError(err, { portSetting: 'S3_EMBEDDED_PORT' }));
