import { pageOf, paginate } from '../../http/pagination';
import { defineRoute } from '../../http/route';
import { retainedSince } from '@worktrack/events';
import { eventRecordSchema, toEventRecord } from './event-record';
import { eventOrder, listEventsQuery } from './event-schemas';

/** Lets a client catch up on what it missed without a webhook: the tenant's events of the last 30 days. */
export const listEvents = defineRoute({
  operationId: 'listEvents',
  method: 'get',
  path: '/events',
  summary: 'List events',
  description: 'Newest first; events are kept 30 days. Filters combine.',
  tag: 'Events',
  permission: 'events:read',
  query: listEventsQuery,
  status: 200,
  response: pageOf(eventRecordSchema),
  handler: async (request) => {
    const { query, tenant, deps } = request;
    const { type, createdSince } = query;
    const retained = retainedSince();
    const since = createdSince && new Date(createdSince) > retained ? new Date(createdSince) : retained;
    return paginate(request, { order: eventOrder, ...deps.data(tenant).events.list({ since, type }), toRecord: toEventRecord });
  },
});
