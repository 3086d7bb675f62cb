import { createLogger, loadApiConfig, loadWorkerConfig } from '@worktrack/config';
import { startApi, type RunningApi } from '../../services/api/src/compose';
import { startWorker, type RunningWorker } from '../../services/worker/src/compose';

/** Test-sized worker settings: quick retries, a quick sweep, loopback receivers. */
export const QUICK_WORKER_ENV = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200,200',
  WORKER_SWEEP_INTERVAL_MS: '500',
  WORKER_SWEEP_GRACE_MS: '1000',
  WORKER_LOCK_DURATION_MS: '2000',
};

/** The API and the worker as they ship (`startApi`, `startWorker`), in this process, with these settings over the run's. */
export async function startServices(env: NodeJS.ProcessEnv): Promise<{ api: RunningApi; worker: RunningWorker; close(): Promise<void> }> {
  const settings = { ...process.env, ...QUICK_WORKER_ENV, ...env };
  const logger = createLogger('silent', 'test');
  const [api, worker] = await Promise.all([startApi(loadApiConfig(settings), logger), startWorker(loadWorkerConfig(settings), logger)]);
  return { api, worker, close: () => Promise.all([api.close(), worker.close()]).then(() => undefined) };
}

/** One request to a running API with a key; the body parsed when it is JSON. */
export async function call(base: string, key: string, method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : null };
}
