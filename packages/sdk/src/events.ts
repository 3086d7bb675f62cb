import { WorktrackApiError } from './errors.js';
import type { components } from './generated/openapi.js';

/** An event as the feed and the Events API give it: `{id, type, createdAt, actor, data}`. */
export type EventRecord = components['schemas']['EventRecord'];
/** Who caused an event: a user (through an API key, or the dashboard when `apiKeyId` is null), or the service. */
export type Actor = components['schemas']['Actor'];

/** One event of the stream: the webhook body (without its subscription's and delivery's ids), with the event's id and its feed cursor. */
export interface StreamedEvent {
  /** The feed cursor after this event: pass it as `after` (the stream, the feed) to go on from here. */
  cursor: string;
  id: string;
  event: string;
  timestamp: string;
  actor: Actor;
  data: Record<string, unknown>;
  organization: { id: string; name: string };
}

/** A page of the feed: its events, and the cursor to pass back for what follows. */
export interface FeedPage {
  data: EventRecord[];
  next: string;
}

export interface FeedOptions {
  /** A cursor (a page's `next`, a streamed event's `cursor`); without it, from the oldest event kept. */
  after?: string;
  /** Events per request (1-1,000). */
  limit?: number;
  signal?: AbortSignal;
}

export interface StreamOptions {
  /** Where to start (a cursor); without it, from now on (a connection lost before the first event resumes from where it started). */
  after?: string;
  types?: string[];
  projectIds?: string[];
  signal?: AbortSignal;
  /** The wait before reconnecting after the stream ended or failed, in ms (default 1,000). */
  reconnectDelayMs?: number;
}

export interface EventsClient {
  /**
   * The pages of the feed after `after`, oldest first, until it has nothing more: keep each page's
   * `next` (say, with what you did with its events) and call it again later with it to go on.
   */
  feed(options?: FeedOptions): AsyncGenerator<FeedPage, void, undefined>;
  /**
   * The events as they happen, for as long as the loop runs: when the connection ends (a replica
   * shut down, the network dropped) it reconnects from the last event received, so nothing is
   * missed or repeated. A refusal (401, 403, 400, 410 `cursor_expired`) throws `WorktrackApiError`.
   */
  stream(options?: StreamOptions): AsyncGenerator<StreamedEvent, void, undefined>;
}

interface Transport {
  baseUrl: string;
  headers: Record<string, string>;
  send: (request: Request) => Promise<Response>;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** The SSE messages in a byte stream, as `{id, data}`; a message with an id and no data (where a stream opened without a cursor starts) has none. */
async function* messagesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id: string; data?: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id = '';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length > 0) yield { id, data: data.join('\n') };
        else if (id) yield { id };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

export function eventsClient(transport: Transport): EventsClient {
  const get = (path: string, init: { signal?: AbortSignal; headers?: Record<string, string> } = {}) =>
    transport.send(new Request(`${transport.baseUrl}${path}`, { headers: { ...transport.headers, ...init.headers }, signal: init.signal }));

  return {
    async *feed({ after, limit, signal } = {}) {
      let cursor = after;
      for (;;) {
        const response = await get(`/v1/events/feed${query({ after: cursor, limit })}`, { signal });
        const body = (await response.json()) as { data: EventRecord[]; next: string | null };
        if (!response.ok) throw new WorktrackApiError(response, body);
        if (body.data.length === 0 || body.next === null) return;
        yield { data: body.data, next: body.next };
        cursor = body.next;
      }
    },

    async *stream({ after, types, projectIds, signal, reconnectDelayMs = 1000 } = {}) {
      let cursor = after;
      const filters = query({ types: types?.join(','), projectIds: projectIds?.join(',') });
      const quiet = new AbortController().signal;
      while (!signal?.aborted) {
        let response: Response | undefined;
        try {
          response = await get(`/v1/events/stream${filters}`, { signal, headers: { Accept: 'text/event-stream', ...(cursor && { 'Last-Event-ID': cursor }) } });
        } catch {
          // The network failed: try again, unless the caller stopped.
          if (signal?.aborted) return;
        }
        if (response && !response.ok && response.status !== 429 && response.status < 500) {
          throw new WorktrackApiError(response, await response.json().catch(() => undefined));
        }
        if (response?.ok && response.body) {
          try {
            for await (const message of messagesOf(response.body)) {
              cursor = message.id;
              if (message.data !== undefined) yield { ...(JSON.parse(message.data) as Omit<StreamedEvent, 'cursor'>), cursor: message.id };
            }
          } catch {
            if (signal?.aborted) return;
          }
        } else await response?.body?.cancel().catch(() => undefined);
        await transport.sleep(reconnectDelayMs, signal ?? quiet).catch(() => undefined);
      }
    },
  };
}
