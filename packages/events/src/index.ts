export { EVENT_DESCRIPTIONS, EVENT_TYPES, events, isEventType, sampleEvents, type DomainEvent, type EventType } from './catalog';
export { retainedSince } from './outbox';
export type * from './records';
export { SYSTEM_ACTOR } from './records';
export { buildDeliveryBody, type DeliveryBodyInput } from './delivery-body';
