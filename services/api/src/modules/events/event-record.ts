import Joi from 'joi';
import type { OutboxEvent } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import { out } from '../../http/record-fields';

/** DECISIONS §4: events are kept, and readable, for 30 days. */
const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

export const retainedSince = () => new Date(Date.now() - EVENT_RETENTION_MS);

export interface EventRecord {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export function toEventRecord(event: OutboxEvent): EventRecord {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data as Record<string, unknown> };
}

export const eventRecordSchema = Joi.object<EventRecord, true>({
  id: out.id('evt'),
  type: Joi.string()
    .valid(...EVENT_TYPES)
    .required(),
  createdAt: out.timestamp(),
  data: Joi.object().unknown().required().description('The record as the API returns it, as in the webhook delivery body'),
}).id('Event');
