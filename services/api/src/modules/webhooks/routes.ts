import { createWebhook } from './create-webhook';
import { deleteWebhook } from './delete-webhook';
import { getDelivery } from './get-delivery';
import { getWebhook } from './get-webhook';
import { getWebhookSecret } from './get-webhook-secret';
import { getWebhookStats } from './get-webhook-stats';
import { listDeliveries } from './list-deliveries';
import { listWebhooks } from './list-webhooks';
import { recover } from './recover-deliveries';
import { redeliver } from './redeliver';
import { testWebhook } from './test-webhook';
import { updateWebhook } from './update-webhook';

export const webhookRoutes = [
  listWebhooks,
  createWebhook,
  getWebhook,
  getWebhookSecret,
  updateWebhook,
  deleteWebhook,
  listDeliveries,
  getDelivery,
  testWebhook,
  redeliver,
  recover,
  getWebhookStats,
];
