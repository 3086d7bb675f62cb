import Joi from 'joi';
import type { OutboxEvent } from '@worktrack/db';
import { EVENT_TYPES, type Actor } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { actorSchema } from './actor-schema';

export interface EventRecord {
  id: string;
  type: string;
  createdAt: string;
  actor: Actor;
  data: Record<string, unknown>;
}

export function toEventRecord(event: Pick<OutboxEvent, 'id' | 'type' | 'createdAt' | 'actor' | 'data'>): EventRecord {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    actor: event.actor as Actor,
    data: event.data as Record<string, unknown>,
  };
}

export const eventRecordSchema = Joi.object<EventRecord, true>({
  id: out.id('evt'),
  type: Joi.string()
    .valid(...EVENT_TYPES)
    .required(),
  createdAt: out.timestamp(),
  actor: actorSchema,
  data: Joi.object().unknown().required().description('The record as the API returns it, as in the webhook delivery body'),
}).id('EventRecord');
