import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

/** A span as an OTLP/HTTP JSON export carries it, with its resource's service name and its attributes flattened. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
}

interface ExportRequest {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: {
      spans: (Omit<ReceivedSpan, 'service' | 'attributes' | 'links'> & { attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[] })[];
    }[];
  }[];
}

/** The database a client span calls (`postgresql`, `redis`), under the attribute's new name or its old one. */
export const dbSystem = (span: ReceivedSpan) => span.attributes['db.system.name'] ?? span.attributes['db.system'];

const plainValue = (value: AnyValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue ?? '';
const flatten = (attributes: KeyValue[] = []) => Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));

/** A real OTLP/HTTP receiver (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on a loopback port, or the one given, keeping every span exported to it. */
export async function startOtlpReceiver({ port = 0, host = '127.0.0.1' } = {}) {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const { resource, scopeSpans } of body.resourceSpans) {
          const service = String(flatten(resource.attributes)['service.name']);
          for (const { spans: exported } of scopeSpans)
            for (const span of exported) spans.push({ ...span, service, attributes: flatten(span.attributes), links: span.links ?? [] });
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    /** Export requests of any kind received so far. */
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
