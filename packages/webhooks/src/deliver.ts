import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher, request } from 'undici';
import { createGuardedLookup, type ResolveHost } from './address-guard';
import { DEFAULT_USER_AGENT } from './delivery-headers';
import { readBoundedBody } from './response-body';
import { HostAllowlist, parseWebhookUrl } from './webhook-url';
import { RECORDED_RESPONSE_HEADERS } from './recorded-headers';

export type DeliveryError = 'timeout' | 'redirect' | 'http_status' | 'connection_error' | 'blocked_address' | 'invalid_url';

export interface DeliveryResult {
  /** True for any 2xx received within the deadline. */
  ok: boolean;
  /** The receiver's status code; null when no response arrived. */
  status: number | null;
  /** Whole attempt, from the call to the end of reading the (bounded) response body. */
  responseTimeMs: number;
  error: DeliveryError | null;
  /** Human-readable detail for failures. */
  message?: string;
  /** At most maxResponseBytes of the response body (UTF-8); absent when no response arrived. */
  responseBody?: string;
  /** True when the response body was longer than maxResponseBytes. */
  responseBodyTruncated?: boolean;
  /** The RECORDED_RESPONSE_HEADERS the receiver sent; absent when no response arrived. */
  responseHeaders?: Record<string, string>;
}

export interface DeliveryRequest {
  url: string;
  /** The exact body that was signed. */
  body: string;
  /** Usually the output of buildDeliveryHeaders. */
  headers: Record<string, string>;
}

export interface WebhookDelivererOptions {
  /** Deadline of one attempt; the receiver must answer (status line and headers) within it. */
  timeoutMs: number;
  /** Response body bytes kept; the rest is discarded unread. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Hostnames exempt from the https and address rules (exact match, no port). Default none. */
  allowedHosts?: readonly string[];
  /** Overrides the User-Agent of every request; without it the caller's header is kept (default Worktrack-Webhooks/1.0). */
  userAgent?: string;
  /** How long an idle keep-alive connection is kept. Default 4 s. */
  keepAliveTimeoutMs?: number;
  /** Hostname resolver used at connect time; defaults to the system resolver. */
  resolve?: ResolveHost;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

const BLOCKED_ADDRESS_CODE = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
/** Caller mistakes (bad header values, use after close): thrown, not classified. */
const MISUSE_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/**
 * POSTs webhook deliveries over one keep-alive connection pool. Never follows
 * redirects, bounds each attempt by timeoutMs and the response body by
 * maxResponseBytes, and refuses non-public addresses both for IP-literal URLs and,
 * at every connect, for whatever a hostname resolves to (DNS rebinding).
 *
 * `deliver` resolves with a classified DeliveryResult for every network outcome; it
 * rejects only on misuse (invalid header values, or after `close()`).
 */
export class WebhookDeliverer {
  private readonly agent: Agent;
  private readonly allowlist: HostAllowlist;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly userAgent: string | undefined;

  constructor(options: WebhookDelivererOptions) {
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive number');
    }
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 0) {
      throw new RangeError('maxResponseBytes must be a non-negative integer');
    }
    this.timeoutMs = options.timeoutMs;
    this.maxResponseBytes = maxResponseBytes;
    this.userAgent = options.userAgent;
    this.allowlist = new HostAllowlist(options.allowedHosts ?? []);

    const allowlist = this.allowlist;
    const lookup = createGuardedLookup({
      isExempt: (hostname) => allowlist.has(hostname),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    this.agent = new Agent({
      allowH2: false,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { lookup, timeout: options.timeoutMs },
    });
  }

  async deliver(delivery: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);

    const target = parseWebhookUrl(delivery.url, this.allowlist);
    if (!target.ok) {
      return {
        ok: false,
        status: null,
        responseTimeMs: elapsed(),
        error: target.reason === 'blocked_address' ? 'blocked_address' : 'invalid_url',
        message: target.message,
      };
    }
    let url = target.url;
    if (url.hash !== '') {
      url = new URL(url);
      url.hash = '';
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no response within ${this.timeoutMs} ms`));
    }, this.timeoutMs);

    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          dispatcher: this.agent,
          method: 'POST',
          headers: this.requestHeaders(delivery.headers),
          body: delivery.body,
          signal: controller.signal,
        });
      } catch (error) {
        return { ok: false, status: null, responseTimeMs: elapsed(), ...this.classifyError(error, timedOut) };
      }

      const status = response.statusCode;
      const location = response.headers.location;
      const body = await readBoundedBody(response.body, this.maxResponseBytes, contentLength(response.headers));
      const common = {
        status,
        responseTimeMs: elapsed(),
        responseBody: body.text,
        responseBodyTruncated: body.truncated,
        responseHeaders: recordedHeaders(response.headers),
      };
      if (status >= 200 && status < 300) return { ok: true, error: null, ...common };
      if (status >= 300 && status < 400) {
        const to = typeof location === 'string' ? ` to ${location}` : '';
        return { ok: false, error: 'redirect', message: `redirect${to} not followed (${status})`, ...common };
      }
      return { ok: false, error: 'http_status', message: `receiver answered ${status}`, ...common };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connection pool once in-flight deliveries finish. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private requestHeaders(given: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = {};
    let hasUserAgent = false;
    let hasContentType = false;
    for (const [name, value] of Object.entries(given)) {
      const lower = name.toLowerCase();
      if (lower === 'user-agent') {
        if (this.userAgent !== undefined) continue;
        hasUserAgent = true;
      }
      if (lower === 'content-type') hasContentType = true;
      headers[name] = value;
    }
    if (!hasUserAgent) headers['User-Agent'] = this.userAgent ?? DEFAULT_USER_AGENT;
    if (!hasContentType) headers['Content-Type'] = 'application/json';
    return headers;
  }

  private classifyError(error: unknown, timedOut: boolean): Pick<DeliveryResult, 'error' | 'message'> {
    if (timedOut) return { error: 'timeout', message: `no response within ${this.timeoutMs} ms` };
    const codes = errorCodes(error);
    const message = errorMessage(error);
    if (codes.includes(BLOCKED_ADDRESS_CODE)) return { error: 'blocked_address', message };
    if (codes.some((code) => MISUSE_CODES.has(code))) throw error;
    if (codes.some((code) => TIMEOUT_CODES.has(code))) return { error: 'timeout', message };
    return { error: 'connection_error', message };
  }
}

function recordedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const recorded: Record<string, string> = {};
  for (const name of RECORDED_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) recorded[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return recorded;
}

function contentLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const value = headers['content-length'];
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** Codes of an error, its causes and aggregated errors (net wraps happy-eyeballs failures). */
function errorCodes(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  const codes: string[] = [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') codes.push(code);
  codes.push(...errorCodes(cause, depth + 1));
  if (Array.isArray(errors)) for (const inner of errors) codes.push(...errorCodes(inner, depth + 1));
  return codes;
}

function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const detail = error.message || (error instanceof AggregateError ? error.errors.map(errorMessage).join('; ') : '');
  return code && !detail.includes(code) ? `${code}: ${detail}` : detail;
}
