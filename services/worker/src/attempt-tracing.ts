import type { DeliveryTraceContext, DeliveryWork } from '@worktrack/db';
import { SpanKind, traced, tracingEnabled } from '@worktrack/telemetry';
import { GroupCommit } from './group-commit';
import type { MakeAttempt } from './handlers/deliver-webhook';

/**
 * Each attempt in a span of the trace of the change that caused it (docs/decisions.md#traces),
 * linked to the delivery's previous attempt when it is a retry or a redelivery. The contexts are read
 * only while the worker traces, the attempts starting together in one statement; with tracing off
 * the attempts are made as they are.
 */
export function tracedAttempts(work: Pick<DeliveryWork, 'deliveryTraceContexts'>, makeAttempt: MakeAttempt): MakeAttempt {
  if (!tracingEnabled()) return makeAttempt;
  const contexts = new GroupCommit<string, DeliveryTraceContext | undefined>(async (deliveryIds) => {
    const found = new Map((await work.deliveryTraceContexts(deliveryIds)).map((context) => [context.deliveryId, context]));
    return deliveryIds.map((id) => found.get(id));
  });
  return async (delivery) => {
    const context = await contexts.submit(delivery.id);
    const attributes = {
      'worktrack.delivery.id': delivery.id,
      'worktrack.delivery.attempt': delivery.attemptCount + 1,
      'worktrack.webhook.id': delivery.webhookId,
      'worktrack.event.type': delivery.eventType,
      'http.request.method': 'POST',
      'server.address': new URL(delivery.url).hostname,
      ...(context && { 'worktrack.organization.id': context.organizationId }),
    };
    const options = { kind: SpanKind.CLIENT, attributes, parent: context?.eventTraceparent ?? null, link: context?.lastAttemptTraceparent };
    return traced('webhook attempt', options, () => makeAttempt(delivery));
  };
}
