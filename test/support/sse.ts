/** One Server-Sent Events message as a client receives it. */
export interface SseMessage {
  id: string;
  event: string;
  data: Record<string, unknown>;
  receivedAt: number;
}

export interface OpenedStream {
  status: number;
  /** The error body of a refused stream. */
  body?: unknown;
  messages: SseMessage[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens an event stream with `fetch` and collects its messages as they arrive. */
export async function openStream(url: string, key: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  if (res.status !== 200) return { status: res.status, body: await res.json(), messages, comments, ended: Promise.resolve(), close: () => undefined };
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const at = line.indexOf(': ');
              if (at > 0) fields.set(line.slice(0, at), line.slice(at + 2));
            }
          }
          if (fields.has('data')) {
            messages.push({ id: fields.get('id')!, event: fields.get('event')!, data: JSON.parse(fields.get('data')!), receivedAt: Date.now() });
          }
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  return { status: 200, messages, comments, ended, close: () => abort.abort() };
}
