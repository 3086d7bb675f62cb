import type { RequestHandler } from 'express';
import Joi from 'joi';
import { EVENT_TYPES } from '@worktrack/events';
import type { AppDeps } from '../../../deps';
import { bearerKey, hashApiKey, requireTenant } from '../../../http/auth';
import { matchedRoute } from '../../../http/observability';
import { assertPermission, validate } from '../../../pipeline';
import type { EventStreamDescription } from '../../../openapi/document';
import { openFeedCursor } from '../feed-cursor';

/** The stream's path under /v1: an Express handler of its own, since its answer never ends as JSON. */
export const STREAM_PATH = '/events/stream';

interface StreamQuery {
  after?: string;
  types?: string[];
  projectIds?: string[];
}

/** A comma-separated list, given as `a,b`. */
const commaList = (item: Joi.StringSchema) => Joi.array().items(item).min(1).max(100).single();

const streamQuery = Joi.object<StreamQuery, true>({
  after: Joi.string().max(4096).description('A feed cursor, as `Last-Event-ID` (which wins when both are sent)'),
  types: commaList(Joi.string().valid(...EVENT_TYPES)).description('Only these event types (comma-separated)'),
  projectIds: commaList(Joi.string().max(100)).description('Only events of these projects (comma-separated); events of no project are left out'),
});

/** The stream as the OpenAPI document describes it. */
export const streamDescription: EventStreamDescription = {
  operationId: 'streamEvents',
  path: STREAM_PATH,
  summary: 'Stream events as they happen',
  description:
    "Server-Sent Events (`text/event-stream`): each event of the organization and mode as a message whose `id` is a feed cursor, `event` its type and `data` the webhook body (without `webhookId` and `deliveryId`, with the event's `id`). Reconnect with `Last-Event-ID` (or `after`) to get what was missed with no gap and no duplicate; without one, from now on, and the first message is an `id` with no data: the cursor of where the stream started. A comment line every 15 s. At most 5 open streams per API key (429); a revoked key's streams close within 5 s; a client over 1 MiB behind is disconnected and resumes.",
  tag: 'Events',
  permission: 'events:read',
  query: streamQuery,
  errors: ['cursor_expired'],
};

const splitLists = (query: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(query).map(([name, value]) => [name, name !== 'after' && typeof value === 'string' ? value.split(',') : value]));

/**
 * GET /v1/events/stream (docs/decisions.md#history-actors-and-live-events): the tenant's events as
 * Server-Sent Events, from a cursor (`Last-Event-ID` or `after`) or from now on.
 */
export function streamEvents(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    matchedRoute(req, STREAM_PATH);
    const tenant = requireTenant(req);
    assertPermission(tenant, 'events:read');
    const query = validate(streamQuery, splitLists(req.query as Record<string, unknown>));
    const lastEventId = req.get('last-event-id');
    const cursor = lastEventId ?? query.after;
    const after = cursor ? openFeedCursor(deps.config.cursorSecret, tenant, cursor, lastEventId ? 'Last-Event-ID' : 'after') : null;
    await deps.streams.serve({
      tenant,
      keyHash: hashApiKey(bearerKey(req)),
      filter: { types: query.types, projectIds: query.projectIds },
      after,
      req,
      res,
    });
  };
}
