import type { Logger } from '@worktrack/config';
import type { DeliveryWork, SecretBox, UnscopedData } from '@worktrack/db';
import type { Mailer } from '@worktrack/mail';
import type { JobScheduler } from '@worktrack/queue';
import type { WebhookDeliverer } from '@worktrack/webhooks/deliver';
import type { DeliveryMetrics } from './delivery-metrics';

export interface WorkerDeps {
  /** Every tenant's data: the worker's jobs are cross-tenant (the sweep, retention, health). */
  data: UnscopedData;
  /** The hot prepared statements (fan-out, claim, record, retention) of @worktrack/db, on the same pool. */
  work: DeliveryWork;
  jobs: JobScheduler;
  deliverer: WebhookDeliverer;
  logger: Logger;
  metrics: DeliveryMetrics;
  /** Opens the subscriptions' signing secrets, sealed at rest under SECRETS_KEY. */
  secrets: SecretBox;
  /** Tells admins when a subscription is disabled. */
  mailer: Mailer;
  /** Where the dashboard is reached: the links of mails. */
  publicBaseUrl: string;
}

export interface DeliveryPolicy {
  /** Delays before retries 1..n; a delivery makes at most n + 1 attempts. */
  retryDelaysMs: number[];
  /** How long a claimed delivery stays locked to its worker: the HTTP deadline plus a margin. */
  claimMs: number;
  /** How long a claimed delivery may wait for a slot, so that its attempt and record end within its lease. */
  startWithinMs: number;
}
