import { fanOutEvents, newId, undispatchedEvents, type NewDelivery } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import type { WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';

export type DispatchEvent = (payload: DispatchEventPayload) => Promise<number>;

/**
 * The fan-out handler: an outbox event becomes a delivery row per matching active subscription, each
 * with its own deliveryId and stored body, then a delivery job each. Concurrent jobs' events are
 * fanned out a batch per statement (group commit). Marking an event dispatched and inserting its
 * deliveries is one statement, and only the dispatcher that marks it inserts, so an event never
 * fans out twice. Resolves with the number of deliveries the job's event got.
 */
export function dispatchHandler(deps: WorkerDeps): DispatchEvent {
  const fanOuts = new GroupCommit<string, number>(async (eventIds) => {
    const deliveries: NewDelivery[] = [];
    for (const event of await undispatchedEvents(deps.sql, eventIds)) {
      for (const webhookId of event.webhookIds) {
        const id = newId('delivery');
        const body = buildDeliveryBody({
          eventType: event.type,
          occurredAt: event.createdAt,
          webhookId,
          deliveryId: id,
          data: event.data,
          organization: { id: event.organizationId, name: event.organizationName },
        });
        deliveries.push({ id, eventId: event.id, webhookId, body });
      }
    }
    const inserted = new Set(await fanOutEvents(deps.sql, eventIds, deliveries));
    const made = deliveries.filter((d) => inserted.has(d.id));
    if (made.length > 0) await deps.jobs.scheduleDeliveries(made.map((d) => ({ deliveryId: d.id, attempt: 1 })));
    // An event submitted twice in one batch fans out for the first submitter only.
    const counts = new Map<string, number>();
    for (const d of made) counts.set(d.eventId, (counts.get(d.eventId) ?? 0) + 1);
    return eventIds.map((eventId) => {
      const count = counts.get(eventId) ?? 0;
      counts.delete(eventId);
      return count;
    });
  });
  return ({ eventId }) => fanOuts.submit(eventId);
}
