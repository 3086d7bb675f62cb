const withTimeout = <T>(work: Promise<T>, ms: number) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

/** Runs every named check at once, each bounded by the timeout, and returns the names that failed. */
export async function unreadyDependencies(checks: Record<string, () => Promise<unknown>>, timeoutMs = 2_000): Promise<string[]> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!(), timeoutMs)));
  return names.filter((_, i) => results[i]!.status === 'rejected');
}
