import Joi from 'joi';
import { retainedSince } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { eventRecordSchema, toEventRecord, type EventRecord } from './event-record';
import { openFeedCursor, sealFeedCursor } from './feed-cursor';

const MAX_FEED_PAGE = 1000;

interface FeedQuery {
  after?: string;
  limit: number;
}

interface FeedPage {
  data: EventRecord[];
  next: string | null;
}

/**
 * docs/decisions.md#history-actors-and-live-events: every event of the tenant exactly once, in the
 * order their transactions ended, to a client that passes back each page's `next`.
 */
export const readFeed = defineRoute({
  operationId: 'readEventFeed',
  method: 'get',
  path: '/events/feed',
  summary: 'Read the event feed',
  description:
    'Every event of the organization and mode exactly once, oldest first: call it again and again with the last `next` and no event is skipped or repeated, also one whose change committed late. Without `after`, from the oldest event kept (30 days). An event appears once its transaction and every older one have ended, so a page can be empty while changes are being written. A cursor older than 30 days answers 410 `cursor_expired`.',
  tag: 'Events',
  permission: 'events:read',
  query: Joi.object<FeedQuery, true>({
    after: Joi.string().max(4096).description("The previous page's `next` (or a stream message's `id`)"),
    limit: Joi.number().integer().min(1).max(MAX_FEED_PAGE).default(100),
  }),
  status: 200,
  response: Joi.object<FeedPage, true>({
    data: Joi.array().items(eventRecordSchema).required(),
    next: Joi.string()
      .allow(null)
      .required()
      .description('Pass it as `after` for what follows; the same as `after` when nothing new has ended yet, null only when there is no event at all'),
  }).id('EventFeedPage'),
  errors: ['cursor_expired'],
  handler: async ({ query, tenant, deps }) => {
    const secret = deps.config.cursorSecret;
    const after = query.after === undefined ? null : openFeedCursor(secret, tenant, query.after, 'after');
    const events = await deps.data(tenant).feed.after(after, { limit: query.limit, since: retainedSince() });
    const last = events.at(-1);
    return { data: events.map(toEventRecord), next: last ? sealFeedCursor(secret, tenant, last) : (query.after ?? null) };
  },
});
