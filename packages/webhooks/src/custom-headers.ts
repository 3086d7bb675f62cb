/**
 * A subscription's own headers (docs/webhooks.md#custom-headers), sent with every attempt beside the
 * service's: a bearer token or routing header an API gateway in front of the receiver demands.
 */

/** docs/decisions.md#subscriber-controls */
export const MAX_CUSTOM_HEADERS = 10;
export const MAX_CUSTOM_HEADER_VALUE_BYTES = 1024;

/** RFC 9110 token: what a header name is. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Printable ASCII and inner spaces or tabs: what every HTTP stack sends as it is.
const VALUE = /^[\x21-\x7e]([\t\x20-\x7e]*[\x21-\x7e])?$/;
const RESERVED = new Set(['content-type', 'content-length', 'host', 'user-agent']);
const RESERVED_PREFIXES = ['webhook-', 'x-service-'];

export type HeadersCheck = { ok: true } | { ok: false; message: string };

/** Whether the service sets this header itself, so a subscription may not. */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** Checks names (tokens, not reserved, no two alike in any case) and values (printable, at most 1 KiB). */
export function checkCustomHeaders(headers: Record<string, string>): HeadersCheck {
  const names = Object.keys(headers);
  if (names.length > MAX_CUSTOM_HEADERS) return { ok: false, message: `headers may name at most ${MAX_CUSTOM_HEADERS} headers, not ${names.length}` };
  const seen = new Set<string>();
  for (const name of names) {
    if (!HTTP_TOKEN.test(name)) return { ok: false, message: `header name ${JSON.stringify(name)} is not an HTTP token` };
    if (isReservedHeader(name)) {
      return {
        ok: false,
        message: `header ${name} is set by the service; content-type, content-length, host, user-agent, webhook-* and x-service-* are reserved`,
      };
    }
    if (seen.has(name.toLowerCase())) return { ok: false, message: `header ${name} is named twice (names are case-insensitive)` };
    seen.add(name.toLowerCase());
    const value = headers[name]!;
    if (Buffer.byteLength(value) > MAX_CUSTOM_HEADER_VALUE_BYTES) {
      return { ok: false, message: `header ${name} must be at most ${MAX_CUSTOM_HEADER_VALUE_BYTES} bytes` };
    }
    if (!VALUE.test(value)) {
      return { ok: false, message: `header ${name} must be printable ASCII (spaces and tabs inside), without leading or trailing whitespace` };
    }
  }
  return { ok: true };
}

// A value this short would be shown whole by its last four characters.
const MIN_REVEALING_LENGTH = 12;

/** How the subscription record shows a header value: `****` and, for a value long enough to keep it secret, its last 4 characters. */
export function maskHeaderValue(value: string): string {
  return value.length >= MIN_REVEALING_LENGTH ? `****${value.slice(-4)}` : '****';
}
