import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { retainedSince } from '@worktrack/events';
import { eventRecordSchema, toEventRecord } from './event-record';
import { eventParams } from './event-schemas';

export const getEvent = defineRoute({
  operationId: 'getEvent',
  method: 'get',
  path: '/events/:eventId',
  summary: 'Get an event',
  description: 'Events older than 30 days are not found.',
  tag: 'Events',
  permission: 'events:read',
  params: eventParams,
  etag: true,
  status: 200,
  response: eventRecordSchema,
  errors: ['not_found'],
  handler: async ({ params, tenant, deps }) => {
    const event = await deps.data(tenant).events.find(params.eventId, retainedSince());
    if (!event) throw notFound('eventId', 'No such event');
    return toEventRecord(event);
  },
});
