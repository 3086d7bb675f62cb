import { fanOutEvents, firstAttemptsPending, newId, undispatchedEvents, type ClaimedDelivery, type NewDelivery } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import type { AttemptSlots } from '../attempt-slots';
import type { DeliveryPolicy, WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';
import type { DeliveryHandler } from './deliver-webhook';

export type DispatchEvent = (payload: DispatchEventPayload) => Promise<number>;

interface FannedOut {
  /** Deliveries this job inserted: the first attempt leased to it, or still to claim. */
  inserted: { id: string; leased: ClaimedDelivery | null }[];
  /** Deliveries of its event, fanned out before, whose first attempt is still to be made. */
  takenOver: string[];
}

/**
 * The fan-out handler: an outbox event becomes a delivery row per matching active subscription, each
 * with its own deliveryId and stored body, and the job then makes each delivery's first attempt
 * itself (a delivery job is only for retries). A job carries the events published together; its
 * events and those of concurrent jobs are fanned out a batch per statement (group commit). Marking
 * an event dispatched and inserting its deliveries is one statement, and only the dispatcher that
 * marks it inserts, so an event never fans out twice. That statement also leases the first attempts
 * for which a slot was free, so they need no claim.
 *
 * The job completes once its first attempts are recorded, so a killed worker's job is handed back by
 * BullMQ's stalled-job check like a delivery job; the dispatcher that runs it again finds the event
 * dispatched and makes the first attempts no one recorded (waiting out the dead worker's leases).
 * Resolves with the number of deliveries the job inserted.
 */
export function dispatchHandler(deps: WorkerDeps, policy: Pick<DeliveryPolicy, 'claimMs'>, slots: AttemptSlots, delivery: DeliveryHandler): DispatchEvent {
  const fanOuts = new GroupCommit<string, FannedOut>(async (eventIds) => {
    const events = await undispatchedEvents(deps.sql, eventIds);
    const loaded = new Set(events.map((e) => e.id));
    const dispatchedBefore = eventIds.filter((eventId) => !loaded.has(eventId));
    const pending = dispatchedBefore.length > 0 ? await firstAttemptsPending(deps.sql, dispatchedBefore) : [];
    const takenOver = groupByEvent(pending.map((d) => ({ eventId: d.eventId, item: d.deliveryId })));

    const deliveries: NewDelivery[] = [];
    for (const event of events) {
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
        deliveries.push({ id, eventId: event.id, webhookId, body, claim: false });
      }
    }
    // A first attempt is leased at once only when a slot is free for it; the slots reserved for leases the
    // statement did not grant go back at once, the others with their attempts.
    for (const d of deliveries) d.claim = slots.tryReserve();
    const reserved = deliveries.filter((d) => d.claim).length;
    const fannedOut = await fanOutEvents(deps.sql, eventIds, deliveries, policy.claimMs).catch((err: unknown) => {
      slots.release(reserved);
      throw err;
    });
    slots.release(reserved - fannedOut.filter((d) => d.claimed).length);
    const made = groupByEvent(fannedOut.map((d) => ({ eventId: d.eventId, item: { id: d.id, leased: d.claimed } })));
    // An event submitted twice in one batch is fanned out, or taken over, for its first submitter only.
    return eventIds.map((eventId) => {
      const outcome = { inserted: made.get(eventId) ?? [], takenOver: takenOver.get(eventId) ?? [] };
      made.delete(eventId);
      takenOver.delete(eventId);
      return outcome;
    });
  });

  const firstAttempt = async (deliveryId: string) => {
    const held = await delivery.deliverWebhook({ deliveryId, attempt: 1 });
    if (held) await deps.jobs.scheduleDeliveries([{ deliveryId, attempt: 1, delayMs: held.heldForMs }]);
  };

  return async ({ eventIds }) => {
    const fanOutsDone = await Promise.allSettled(eventIds.map((eventId) => fanOuts.submit(eventId)));
    const fannedOut = fanOutsDone.flatMap((done) => (done.status === 'fulfilled' ? [done.value] : []));
    const attempts = fannedOut.flatMap(({ inserted, takenOver }) => [
      ...inserted.map(({ id, leased }) => (leased ? delivery.attemptLeased(leased) : firstAttempt(id))),
      ...takenOver.map(firstAttempt),
    ]);
    // Every attempt ends before the job does, even when another event's fan-out or attempt failed:
    // a leased attempt left unmade would hold its slot, and its delivery, until the lease ran out.
    const failed = [...fanOutsDone, ...(await Promise.allSettled(attempts))].find((done) => done.status === 'rejected');
    if (failed) throw failed.reason;
    return fannedOut.reduce((count, { inserted }) => count + inserted.length, 0);
  };
}

function groupByEvent<T>(items: { eventId: string; item: T }[]): Map<string, T[]> {
  const byEvent = new Map<string, T[]>();
  for (const { eventId, item } of items) {
    const group = byEvent.get(eventId);
    if (group) group.push(item);
    else byEvent.set(eventId, [item]);
  }
  return byEvent;
}
