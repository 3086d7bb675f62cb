import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An address a hostname resolved to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to all of its addresses (default: the system resolver, as net.connect uses). */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolveHost: ResolveHost = (hostname) => dnsLookup(hostname, { all: true });

/**
 * The refusal of a non-public receiver. It never says what a name resolved to: a subscriber
 * could otherwise map internal DNS through it.
 */
export const NOT_PUBLIC_MESSAGE = "the URL's host is not a public address; set WEBHOOK_ALLOWED_HOSTS to allow a local receiver in development";

/** The error a guarded lookup fails a connection with. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
  constructor() {
    super(NOT_PUBLIC_MESSAGE);
    this.name = 'BlockedAddressError';
  }
}

/**
 * True when an IP address must not receive webhooks: anything that is not global
 * unicast (private, loopback, link-local and metadata, CGNAT, unspecified, multicast,
 * broadcast, reserved, documentation, benchmarking, IPv6 ULA, site-local, discard,
 * 6to4, Teredo...), IPv4-mapped and NAT64 (64:ff9b::/96) forms of those, and the
 * deprecated IPv4-compatible ::/96. Anything that does not parse as an IP is blocked.
 */
export function isBlockedAddress(ip: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(stripBrackets(ip));
  } catch {
    return true;
  }
  return isBlockedParsed(parsed);
}

function isBlockedParsed(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';

  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return isBlockedParsed(v6.toIPv4Address());
  if (range === 'rfc6052') {
    // Only the well-known 64:ff9b::/96 prefix embeds the IPv4 address in its last 32 bits.
    return isWellKnownNat64(v6) ? isBlockedParsed(embeddedIPv4(v6)) : true;
  }
  if (range !== 'unicast') return true;
  // ::/96, "IPv4-compatible" (deprecated); ::/128 and ::1 are already non-unicast.
  return v6.parts.slice(0, 6).every((part) => part === 0);
}

function isWellKnownNat64(v6: ipaddr.IPv6): boolean {
  const [a, b, ...rest] = v6.parts;
  return a === 0x64 && b === 0xff9b && rest.slice(0, 4).every((part) => part === 0);
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const high = v6.parts[6] ?? 0;
  const low = v6.parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export interface GuardedLookupOptions {
  /** Hostnames that skip the check (already normalized, see HostAllowlist). */
  isExempt: (hostname: string) => boolean;
  resolve?: ResolveHost;
}

/**
 * A `lookup` for net/tls `connect` that refuses the connection when any address the
 * hostname resolves to is blocked. Run at every connect, so DNS that changes after the
 * URL was accepted (rebinding) cannot reach an internal address. net.connect does not
 * call `lookup` for IP literals: those must be checked before the request.
 */
export function createGuardedLookup(options: GuardedLookupOptions): LookupFunction {
  const resolve = options.resolve ?? systemResolveHost;
  return (hostname: string, lookupOptions: LookupOptions, callback) => {
    resolve(hostname).then(
      (resolved) => {
        let addresses: LookupAddress[] = resolved.map(({ address, family }) => ({ address, family }));
        if (lookupOptions.family === 4 || lookupOptions.family === 6) {
          const wanted = lookupOptions.family;
          addresses = addresses.filter((entry) => entry.family === wanted);
        }
        const first = addresses[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          callback(error, '', 0);
          return;
        }
        if (!options.isExempt(hostname)) {
          if (addresses.some((entry) => isBlockedAddress(entry.address))) {
            callback(new BlockedAddressError(), '', 0);
            return;
          }
        }
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
