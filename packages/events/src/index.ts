export { EVENT_DESCRIPTIONS, EVENT_TYPES, events, isEventType, sampleEvents, type DomainEvent, type EventType } from './catalog';
export { outboxRow, recordEvents, retainedSince, type OutboxRow } from './outbox';
export type * from './records';
export { buildDeliveryBody, type DeliveryBodyInput } from './delivery-body';
