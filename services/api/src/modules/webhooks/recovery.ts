import { newId, resourceOf, type TenantData } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { Tenant } from '../../http/auth';
import { conflict } from '../../http/errors';
import { webhookResource } from './webhook-record';

export const RECOVERY_LIMIT = 10_000;

interface Window {
  webhookId: string;
  since: Date;
  until: Date;
}

/**
 * In one transaction, with the subscription locked against a concurrent disable: failed deliveries
 * of the window go back to pending with the schedule counting from their last attempt, then events
 * of the window with no delivery for the subscription get one, oldest first, up to the limit. All
 * are due at once: the workers' claims find them, for a subscription that orders by resource one at
 * a time per resource, in commit order. Returns how many.
 */
export async function recoverDeliveries(data: TenantData, tenant: Tenant, { webhookId, since, until }: Window): Promise<number> {
  return data.transaction(async (tx) => {
    const webhook = await webhookResource.lock(tx, webhookId);
    if (webhook.status !== 'active') throw conflict('The subscription is disabled; re-enable it before recovering', 'webhookId');

    const resent = await tx.deliveries.retryFailed(webhook.id, since, until, RECOVERY_LIMIT);
    const missed = await tx.deliveries.missedEvents(webhook.id, since, until, RECOVERY_LIMIT - resent.length);
    const created = await tx.deliveries.insert(
      webhook.id,
      missed.map((event) => {
        const id = newId('delivery');
        const body = buildDeliveryBody({
          eventType: event.type,
          occurredAt: event.createdAt,
          webhookId: webhook.id,
          deliveryId: id,
          data: event.data,
          organization: { id: tenant.organizationId, name: tenant.organizationName },
        });
        return { id, eventId: event.id, eventType: event.type, body, resourceId: resourceOf(event.data), position: event.position };
      }),
    );
    // Resent deliveries made while it ordered nothing (or redelivered since) take their place in their resources' order.
    if (webhook.ordering === 'resource') await tx.deliveries.matchOrdering(webhook.id, webhook.ordering);
    return resent.length + created.length;
  });
}
