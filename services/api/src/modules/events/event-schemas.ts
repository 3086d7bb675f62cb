import Joi from 'joi';
import { EVENT_TYPES } from '@worktrack/events';
import { pageQuery } from '../../http/pagination';
import { fields } from '../../http/validation';

export const eventParams = Joi.object<{ eventId: string }>({ eventId: Joi.string().max(100).required() });

export interface EventFilters {
  type?: string;
  createdSince?: string;
  limit: number;
  offset: number;
}

export const listEventsQuery = Joi.object<EventFilters>({
  type: Joi.string().valid(...EVENT_TYPES),
  createdSince: fields.timestamp().description('Only events created at or after this instant'),
  ...pageQuery,
});
