/** Polls until the check returns a value other than undefined, or fails after the timeout. */
export async function waitFor<T>(check: () => Promise<T | undefined>, { timeoutMs = 10_000, intervalMs = 20 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
