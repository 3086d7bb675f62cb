import { isIP } from 'node:net';
import { isBlockedAddress, NOT_PUBLIC_MESSAGE, stripBrackets, systemResolveHost, type ResolveHost } from './address-guard';

export type UrlRejectionReason = 'invalid_url' | 'insecure_protocol' | 'credentials_in_url' | 'blocked_address' | 'dns_failure';

export type UrlCheckResult = { ok: true } | { ok: false; reason: UrlRejectionReason; message: string };

export interface CheckWebhookUrlOptions {
  /**
   * Hostnames (no port, exact match; IPs in any notation) exempt from the https rule
   * and the address rules, e.g. `['127.0.0.1', 'localhost']` in development.
   */
  allowedHosts: readonly string[];
  /** Hostname resolver; defaults to the system resolver (node:dns lookup, all addresses). */
  resolve?: ResolveHost;
}

/**
 * An allowlist entry in the form URL.hostname takes (lower case, IPs canonical, e.g.
 * `127.1` -> `127.0.0.1`), without IPv6 brackets.
 */
function canonicalHost(entry: string): string {
  const bare = stripBrackets(entry.trim().toLowerCase());
  try {
    return stripBrackets(new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname);
  } catch {
    return bare;
  }
}

/** Exact-hostname allowlist. Look-ups take hostnames as URL.hostname gives them. */
export class HostAllowlist {
  private readonly hosts: ReadonlySet<string>;

  constructor(hosts: readonly string[]) {
    this.hosts = new Set(hosts.filter((host) => host.trim() !== '').map(canonicalHost));
  }

  has(hostname: string): boolean {
    return this.hosts.size > 0 && this.hosts.has(stripBrackets(hostname));
  }
}

export type ParsedWebhookUrl =
  | {
      ok: true;
      url: URL;
      /** Normalized hostname (no brackets). */
      host: string;
      allowlisted: boolean;
      /** The host when it is an IP literal, else null (then DNS decides). */
      ip: string | null;
    }
  | { ok: false; reason: UrlRejectionReason; message: string };

/** The checks that need no DNS: syntax, scheme, credentials, IP-literal hosts. */
export function parseWebhookUrl(raw: string, allowlist: HostAllowlist): ParsedWebhookUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid_url', message: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'invalid_url', message: `unsupported scheme ${url.protocol}` };
  }
  if (url.hostname === '') {
    return { ok: false, reason: 'invalid_url', message: 'URL has no host' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials_in_url', message: 'URL must not contain credentials' };
  }

  const host = stripBrackets(url.hostname); // URL has lower-cased it and made IPs canonical
  const allowlisted = allowlist.has(host);
  if (url.protocol === 'http:' && !allowlisted) {
    return {
      ok: false,
      reason: 'insecure_protocol',
      message: 'URL must use https; set WEBHOOK_ALLOWED_HOSTS to allow an http receiver in development',
    };
  }

  const ip = isIP(host) ? host : null;
  if (ip !== null && !allowlisted && isBlockedAddress(ip)) {
    return { ok: false, reason: 'blocked_address', message: NOT_PUBLIC_MESSAGE };
  }
  return { ok: true, url, host, allowlisted, ip };
}

/**
 * Validates a subscription URL when it is created or changed: https (http only for
 * allowlisted hosts), no credentials, and every address the host resolves to public
 * (allowlisted hosts exempt). Delivery checks the addresses again at connect time.
 */
export async function checkWebhookUrl(raw: string, options: CheckWebhookUrlOptions): Promise<UrlCheckResult> {
  const parsed = parseWebhookUrl(raw, new HostAllowlist(options.allowedHosts));
  if (!parsed.ok) return parsed;
  if (parsed.allowlisted || parsed.ip !== null) return { ok: true };

  const resolve = options.resolve ?? systemResolveHost;
  let addresses: Awaited<ReturnType<typeof resolve>>;
  try {
    addresses = await resolve(parsed.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return { ok: false, reason: 'dns_failure', message: `cannot resolve ${parsed.host} (${code})` };
  }
  if (addresses.length === 0) {
    return { ok: false, reason: 'dns_failure', message: `${parsed.host} has no addresses` };
  }
  if (addresses.some((entry) => isBlockedAddress(entry.address))) {
    return { ok: false, reason: 'blocked_address', message: NOT_PUBLIC_MESSAGE };
  }
  return { ok: true };
}
