import { tracesRequested } from './settings';

let stop: (() => Promise<void>) | undefined;

/**
 * Starts tracing when the `OTEL_*` variables ask for it, before the instrumented modules load: the
 * services' entry points import a module that calls this first. Otherwise the SDK is not even
 * loaded, so tracing costs nothing.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (stop || !tracesRequested(env)) return;
  // Loaded here, and only here, so that a service without tracing never loads the SDK.
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  const sdk = startSdk(serviceName);
  stop = () => sdk.shutdown();
}

/** Whether this process traces. */
export function tracingEnabled(): boolean {
  return stop !== undefined;
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when it is off. */
export async function stopTracing(): Promise<void> {
  await stop?.();
}
