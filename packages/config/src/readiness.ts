async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every named check at once, each bounded by the timeout, and returns the names that failed. */
export async function unreadyDependencies(checks: Record<string, () => Promise<unknown>>, timeoutMs = 2_000): Promise<string[]> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!(), timeoutMs)));
  return names.filter((_, i) => results[i]!.status === 'rejected');
}
