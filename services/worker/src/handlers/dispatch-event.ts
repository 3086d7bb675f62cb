import { fanOutEvents, firstAttemptsPending, newId, undispatchedEvents, type NewDelivery } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import type { WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';
import type { DeliverWebhook } from './deliver-webhook';

export type DispatchEvent = (payload: DispatchEventPayload) => Promise<number>;

interface FannedOut {
  /** Deliveries this job inserted for its event. */
  inserted: string[];
  /** Deliveries of its event, already fanned out, whose first attempt is still to be made. */
  takenOver: string[];
}

/**
 * The fan-out handler: an outbox event becomes a delivery row per matching active subscription, each
 * with its own deliveryId and stored body, and the job then makes each delivery's first attempt
 * itself (a delivery job only for retries). Concurrent jobs' events are fanned out a batch per
 * statement (group commit). Marking an event dispatched and inserting its deliveries is one
 * statement, and only the dispatcher that marks it inserts, so an event never fans out twice.
 *
 * The job completes once its first attempts are recorded, so a killed worker's job is handed back by
 * BullMQ's stalled-job check like a delivery job; the dispatcher that runs it again finds the event
 * dispatched and makes the first attempts no one recorded (waiting out the dead worker's claims).
 * Resolves with the number of deliveries the job inserted.
 */
export function dispatchHandler(deps: WorkerDeps, deliverWebhook: DeliverWebhook): DispatchEvent {
  const fanOuts = new GroupCommit<string, FannedOut>(async (eventIds) => {
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
    const made = groupByEvent(deliveries.filter((d) => inserted.has(d.id)).map((d) => ({ eventId: d.eventId, deliveryId: d.id })));
    const dispatchedBefore = eventIds.filter((eventId) => !made.has(eventId));
    const takenOver = groupByEvent(dispatchedBefore.length > 0 ? await firstAttemptsPending(deps.sql, dispatchedBefore) : []);
    // An event submitted twice in one batch is fanned out, or taken over, for its first submitter only.
    return eventIds.map((eventId) => {
      const outcome = { inserted: made.get(eventId) ?? [], takenOver: takenOver.get(eventId) ?? [] };
      made.delete(eventId);
      takenOver.delete(eventId);
      return outcome;
    });
  });

  const firstAttempt = async (deliveryId: string) => {
    const held = await deliverWebhook({ deliveryId, attempt: 1 });
    if (held) await deps.jobs.scheduleDeliveries([{ deliveryId, attempt: 1, delayMs: held.heldForMs }]);
  };

  return async ({ eventId }) => {
    const { inserted, takenOver } = await fanOuts.submit(eventId);
    // Every attempt ends before the job does, even when one of them failed.
    const failed = (await Promise.allSettled([...inserted, ...takenOver].map(firstAttempt))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return inserted.length;
  };
}

function groupByEvent(deliveries: { eventId: string; deliveryId: string }[]): Map<string, string[]> {
  const byEvent = new Map<string, string[]>();
  for (const { eventId, deliveryId } of deliveries) {
    const ids = byEvent.get(eventId);
    if (ids) ids.push(deliveryId);
    else byEvent.set(eventId, [deliveryId]);
  }
  return byEvent;
}
