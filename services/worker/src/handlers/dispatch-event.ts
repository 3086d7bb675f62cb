import { newId, resourceOf, type DeliveryRow, type DeliveryWork, type EventToDispatch } from '@worktrack/db';
import { buildDeliveryBody } from '@worktrack/events';
import type { DispatchEventPayload } from '@worktrack/queue';
import { setSpanAttributes, SpanKind, traced } from '@worktrack/telemetry';
import type { WorkerDeps } from '../deps';
import { GroupCommit } from '../group-commit';

export type DispatchEvent = (payload: DispatchEventPayload) => Promise<number>;

/**
 * The undispatched events among these, and, for those an ordered subscription wants, the earlier
 * events of their resources not dispatched yet either: a resource's events then reach an ordered
 * subscription's deliveries in commit order, whichever job (or sweep) carried them. An earlier event
 * has committed before a later one was written (its row lock ordered them), so it is seen here.
 */
async function eventsToFanOut(work: DeliveryWork, eventIds: string[]): Promise<EventToDispatch[]> {
  const events = await work.undispatchedEvents(eventIds);
  const ordered = events.filter((event) => event.ordered && resourceOf(event.data) !== null);
  return ordered.length === 0 ? events : [...events, ...(await work.earlierUndispatchedEvents(ordered))];
}

/**
 * The fan-out handler: an outbox event becomes a delivery row per matching active subscription, each
 * with its own deliveryId and stored body, due at once; `onFannedOut` then wakes the worker's claim,
 * which sends them in turn with every other organization's. A job carries the events published
 * together; its events and those of concurrent jobs are fanned out a batch per statement (group
 * commit). Marking an event dispatched and inserting its deliveries is one statement, and only the
 * dispatcher that marks it inserts, so an event never fans out twice; a job run again after its worker
 * died finds its events dispatched and does nothing, their deliveries already waiting in Postgres.
 * Each event's fan-out is a span of the trace of the change that wrote it (docs/decisions.md#traces).
 * Resolves with the number of deliveries the job inserted.
 */
export function dispatchHandler(deps: Pick<WorkerDeps, 'work'>, onFannedOut: () => void): DispatchEvent {
  const fanOuts = new GroupCommit<string, number>(async (eventIds) => {
    const events = await eventsToFanOut(deps.work, eventIds);
    const deliveries: DeliveryRow[] = [];
    for (const event of events) {
      for (const webhookId of event.webhookIds) {
        const id = newId('delivery');
        const body = buildDeliveryBody({
          eventType: event.type,
          occurredAt: event.createdAt,
          webhookId,
          deliveryId: id,
          actor: event.actor,
          data: event.data,
          organization: { id: event.organizationId, name: event.organizationName },
        });
        deliveries.push({ id, eventId: event.id, webhookId, eventType: event.type, body, resourceId: resourceOf(event.data), position: event.position });
      }
    }
    // Events without a subscription left are marked dispatched all the same.
    const inserted = events.length > 0 ? await deps.work.fanOutEvents([...new Set([...eventIds, ...events.map((event) => event.id)])], deliveries) : [];
    if (inserted.length > 0) onFannedOut();
    const perEvent = new Map<string, number>();
    for (const eventId of inserted) perEvent.set(eventId, (perEvent.get(eventId) ?? 0) + 1);
    // An event submitted twice in one batch is counted for its first submitter only.
    return eventIds.map((eventId) => {
      const count = perEvent.get(eventId) ?? 0;
      perEvent.delete(eventId);
      return count;
    });
  });

  const fanOut = (eventId: string, traceparent: string | null) =>
    traced('webhook fan-out', { kind: SpanKind.CONSUMER, parent: traceparent, attributes: { 'worktrack.event.id': eventId } }, async () => {
      const count = await fanOuts.submit(eventId);
      setSpanAttributes({ 'worktrack.fan_out.deliveries': count });
      return count;
    });

  return async ({ eventIds, traceparents }) => {
    const counts = await Promise.all(eventIds.map((eventId) => fanOut(eventId, traceparents?.[eventId] ?? null)));
    return counts.reduce((sum, count) => sum + count, 0);
  };
}
