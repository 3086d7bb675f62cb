import type { Delivery, DeliveryAttempt, Webhook } from '@worktrack/db';
import { iso } from '../timestamps';

export function toWebhookRecord(webhook: Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    status: webhook.status,
    disabledReason: webhook.disabledReason,
    disabledAt: iso(webhook.disabledAt),
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}

export function toDeliveryRecord(delivery: Delivery) {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    event: delivery.eventType,
    status: delivery.status,
    test: delivery.test,
    attemptCount: delivery.attemptCount,
    lastAttemptAt: iso(delivery.lastAttemptAt),
    nextAttemptAt: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null,
    createdAt: delivery.createdAt.toISOString(),
  };
}

export function toDeliveryDetail(delivery: Delivery & { attempts: DeliveryAttempt[] }) {
  return {
    ...toDeliveryRecord(delivery),
    payload: JSON.parse(delivery.body) as unknown,
    attempts: delivery.attempts.map((a) => ({
      attemptNumber: a.attemptNumber,
      attemptedAt: a.attemptedAt.toISOString(),
      responseStatus: a.responseStatus,
      responseTimeMs: a.responseTimeMs,
      error: a.error,
      responseBody: a.responseBody,
      responseHeaders: a.responseHeaders as Record<string, string> | null,
    })),
  };
}
