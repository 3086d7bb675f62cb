import type { Actor } from './records';

export interface DeliveryBodyInput {
  eventType: string;
  /** When the event happened (the outbox row's creation). */
  occurredAt: Date;
  webhookId: string;
  deliveryId: string;
  /** Who caused the event. */
  actor: Actor;
  data: unknown;
  organization: { id: string; name: string };
  /** Marks sample deliveries sent by `POST /webhooks/{id}/test`. */
  test?: boolean;
}

/**
 * The JSON body of one delivery (docs/decisions.md#delivery-requests), serialized once and stored so that every
 * attempt and redelivery sends, and signs, the same bytes.
 */
export function buildDeliveryBody(input: DeliveryBodyInput): string {
  return JSON.stringify({
    event: input.eventType,
    timestamp: input.occurredAt.toISOString(),
    webhookId: input.webhookId,
    deliveryId: input.deliveryId,
    actor: input.actor,
    data: input.data,
    organization: { id: input.organization.id, name: input.organization.name },
    ...(input.test && { test: true }),
  });
}
