import type { RedisClient } from '@worktrack/queue';
import type { ApiConfig, Logger } from '@worktrack/config';
import type { ActingScope, SecretBox, TenantData, UnscopedData } from '@worktrack/db';
import type { EventPublisher, JobScheduler } from '@worktrack/queue';
import type { Mailer } from '@worktrack/mail';
import type { Registry } from '@worktrack/metrics';
import type { ObjectStore } from '@worktrack/storage';
import type { ResolvedKey } from './http/auth';
import type { KeyCache } from './http/auth';
import type { KeyRevocations } from './http/key-revocations';
import type { EventStreams } from './modules/events/stream/event-streams';

/** Everything the API's routes need, built once by main.ts (or by the test harness). */
export interface AppDeps {
  config: ApiConfig;
  /** One tenant's data: the only way handlers reach rows (every function bound to the tenant, and to who acts when given). */
  data: (scope: ActingScope) => TenantData;
  /** Every tenant's data at once: finding the tenant a credential names, health checks. Not for handlers of tenant data. */
  unscoped: UnscopedData;
  /** Fail-fast connection for quota counters and idempotency records. */
  redis: RedisClient;
  /** Schedules deliveries (fail-fast connection). */
  jobs: JobScheduler;
  /** Publishes committed events in batches (the outbox covers outages). */
  publisher: EventPublisher;
  /** What API keys resolved to, kept briefly in process. */
  keyCache: KeyCache<ResolvedKey>;
  /** Makes every replica forget an organization's cached keys after a revocation or membership change. */
  keyRevocations: KeyRevocations;
  /** This process's open event streams (GET /v1/events/stream). */
  streams: EventStreams;
  logger: Logger;
  /** Sign-in links and invitations (SMTP, or files in MAIL_DIR). */
  mailer: Mailer;
  /** Seals and opens the secrets kept at rest (webhook signing secrets), under SECRETS_KEY. */
  secrets: SecretBox;
  /** Uploaded files' bytes (S3, MinIO or the embedded store). */
  store: ObjectStore;
  /** The service's Prometheus registry, served at /metrics. */
  metrics: Registry;
  /** True once the service is shutting down: /readyz then answers 503. */
  draining: () => boolean;
}
