import { newId } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import type { WorkerDeps } from '../deps';

/**
 * Fans one outbox event out: a delivery row per active subscription of the same organization and
 * mode that lists the event type (or `*`), then a delivery job each. The rows and the event's
 * `dispatchedAt` commit together, so a retried dispatch never fans out twice.
 */
export async function dispatchEvent(deps: WorkerDeps, { eventId }: DispatchEventPayload): Promise<number> {
  const { db, jobs } = deps;
  const event = await db.outboxEvent.findUnique({ where: { id: eventId }, include: { organization: { select: { id: true, name: true } } } });
  if (!event || event.dispatchedAt) return 0;

  const webhooks = await db.webhook.findMany({
    where: {
      organizationId: event.organizationId,
      mode: event.mode,
      status: 'active',
      OR: [{ events: { has: event.type } }, { events: { has: '*' } }],
    },
    select: { id: true },
  });
  const now = new Date();
  const deliveries = webhooks.map(({ id: webhookId }) => {
    const id = newId('delivery');
    return {
      id,
      organizationId: event.organizationId,
      mode: event.mode,
      webhookId,
      eventId: event.id,
      eventType: event.type,
      body: buildDeliveryBody({
        eventType: event.type,
        occurredAt: event.createdAt,
        webhookId,
        deliveryId: id,
        data: event.data,
        organization: event.organization,
      }),
      nextAttemptAt: now,
    };
  });
  await db.$transaction([
    db.delivery.createMany({ data: deliveries, skipDuplicates: true }),
    db.outboxEvent.update({ where: { id: event.id }, data: { dispatchedAt: now } }),
  ]);
  await jobs.scheduleDeliveries(deliveries.map((d) => ({ deliveryId: d.id, attempt: 1 })));
  return deliveries.length;
}
