/** The address the API listens on (HOST, PORT) as a URL to open: a wildcard host is reached at 127.0.0.1. */
export function listeningAddress(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

const THIS_MACHINE = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The start's warning when PUBLIC_BASE_URL names this machine at another port than the API's: every
 * link would lead nowhere. Any other host (a proxy, a domain) is the deployment's to know.
 */
export function publicBaseUrlMismatch(publicBaseUrl: string, host: string, port: number): string | undefined {
  const url = new URL(publicBaseUrl);
  const urlPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!THIS_MACHINE.has(url.hostname) || urlPort === port) return undefined;
  return `PUBLIC_BASE_URL (${url.origin}) names this machine at port ${urlPort}, but the API listens on ${listeningAddress(host, port)} (HOST, PORT), so links in mails and sign-in links lead nowhere: unset PUBLIC_BASE_URL to use the API's address, or make them agree`;
}
