import Joi from 'joi';
import { EVENT_TYPES, type EventType } from '@worktrack/events';
import { creationOrder } from '../../http/list-order';
import { pageQuery, type PageParams } from '../../http/pagination';
import type { EventRecord } from './event-record';
import { fields } from '../../http/fields';

export const eventParams = Joi.object<{ eventId: string }, true>({ eventId: Joi.string().max(100).required() });

export interface EventFilters extends PageParams<'createdAt'> {
  type?: EventType;
  createdSince?: string;
}

export const eventOrder = creationOrder<EventRecord>('events', '-createdAt');

export const listEventsQuery = Joi.object<EventFilters, true>({
  type: Joi.string().valid(...EVENT_TYPES),
  createdSince: fields.timestamp().description('Only events created at or after this instant'),
  ...pageQuery(eventOrder),
});
