import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Link, type SpanKind } from '@opentelemetry/api';
import { tracingEnabled } from './tracing';

const tracer = () => trace.getTracer('worktrack');

/** The active span as a W3C `traceparent`, to store with an event or send with a request; null when nothing is traced. */
export function currentTraceparent(): string | null {
  if (trace.getActiveSpan() === undefined) return null;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

function contextOf(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

function linkTo(traceparent: string | null | undefined): Link[] {
  const linked = trace.getSpanContext(contextOf(traceparent));
  return linked ? [{ context: linked }] : [];
}

export interface TracedOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The span continues this stored context (a new trace when null); the active one when absent. */
  parent?: string | null;
  /** A stored context the span links to (an earlier attempt's). */
  link?: string | null;
}

/**
 * Runs `work` in a span of its own, which ends with it (an error marks it failed). With tracing off,
 * just runs `work`.
 */
export function traced<T>(name: string, options: TracedOptions, work: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work();
  const parent = options.parent === undefined ? context.active() : contextOf(options.parent);
  const spanOptions = { kind: options.kind, attributes: options.attributes, links: linkTo(options.link) };
  return tracer().startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span, if any. */
export function setSpanAttributes(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active span's ids, for a log line; none when nothing is traced. */
export function traceFields(): { traceId?: string; spanId?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : {};
}
