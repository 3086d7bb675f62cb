import { SpanKind, traced, tracingEnabled } from '@worktrack/telemetry';
import type { MakeAttempt } from './handlers/deliver-webhook';

/**
 * Each attempt in a span of the trace of the change that caused it (docs/decisions.md#traces),
 * linked to the delivery's previous attempt when it is a retry or a redelivery: the claim returns
 * both with the delivery. With tracing off the attempts are made as they are.
 */
export function tracedAttempts(makeAttempt: MakeAttempt): MakeAttempt {
  if (!tracingEnabled()) return makeAttempt;
  return (delivery) => {
    const attributes = {
      'worktrack.delivery.id': delivery.id,
      'worktrack.delivery.attempt': delivery.attemptCount + 1,
      'worktrack.webhook.id': delivery.webhookId,
      'worktrack.event.type': delivery.eventType,
      'worktrack.organization.id': delivery.organizationId,
      'http.request.method': 'POST',
      'server.address': new URL(delivery.url).hostname,
    };
    const options = { kind: SpanKind.CLIENT, attributes, parent: delivery.eventTraceparent, link: delivery.lastAttemptTraceparent };
    return traced('webhook attempt', options, () => makeAttempt(delivery));
  };
}
