export { createRedisConnection, type ConnectionRole, type RedisClient } from './connection';
export { MAX_EVENTS_PER_JOB, QUEUE_NAMES, RETENTION, jobs, validatePayload, type DeliverWebhookPayload, type DispatchEventPayload } from './catalog';
export { EventPublisher, type EventPublisherOptions } from './event-publisher';
export { JobScheduler, type PublishedEvent } from './job-scheduler';
export { queueLayout, shardOf, type QueueLayout } from './queue-layout';
