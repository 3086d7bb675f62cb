import Joi from 'joi';
import type { OutboxEvent } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import { out } from '../../http/record-fields';

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
}).id('EventRecord');
