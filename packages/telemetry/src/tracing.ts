import { tracesRequested } from './settings';

let running: { stop: () => Promise<void>; recordRoute: (route: string) => void } | undefined;

/**
 * Starts tracing when the `OTEL_*` variables ask for it, before the instrumented modules load: the
 * services' entry points import a module that calls this first. Otherwise the SDK is not even
 * loaded, so tracing costs nothing.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (running || !tracesRequested(env)) return;
  // Loaded here, and only here, so that a service without tracing never loads the SDK.
  const { recordRoute, startSdk } = require('./sdk') as typeof import('./sdk');
  const sdk = startSdk(serviceName);
  running = { stop: () => sdk.shutdown(), recordRoute };
}

/** Whether this process traces. */
export function tracingEnabled(): boolean {
  return running !== undefined;
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  await running?.stop();
}

/** Names the request's span by the route it matched (`/v1/tasks/:taskId`); nothing when tracing is off. */
export function recordRoute(route: string): void {
  running?.recordRoute(route);
}
