import type { FeedEvent } from '@worktrack/db';

/**
 * One event as a Server-Sent Events message: `id` the feed cursor after it, `event` its type, `data`
 * the body a webhook delivery of it carries (without the subscription's and delivery's ids, which a
 * stream has not), with the event's id.
 */
export function buildStreamMessage(cursor: string, event: FeedEvent, organization: { organizationId: string; organizationName: string }): string {
  const body = {
    id: event.id,
    event: event.type,
    timestamp: event.createdAt.toISOString(),
    actor: event.actor,
    data: event.data,
    organization: { id: organization.organizationId, name: organization.organizationName },
  };
  return `id: ${cursor}\nevent: ${event.type}\ndata: ${JSON.stringify(body)}\n\n`;
}
