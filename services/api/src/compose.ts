import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { redisErrorReporter, type ApiConfig, type Logger } from '@worktrack/config';
import type { Express } from 'express';
import { createDatabase, SecretBox, tenantHandles, unscopedData, type Database, type UnscopedData } from '@worktrack/db';
import { createMailer } from '@worktrack/mail';
import { createMetricsRegistry, registerBacklogGauges } from '@worktrack/metrics';
import { createRedisConnection, EventPublisher, JobScheduler, queueLayout } from '@worktrack/queue';
import { createObjectStore } from '@worktrack/storage';
import { createApp } from './app';
import type { AppDeps } from './deps';
import type { ResolvedKey } from './http/auth';
import { KEY_CACHE_LIFETIME_MS, KeyCache } from './http/auth';
import { KeyRevocations } from './http/key-revocations';
import { EventStreams, type EventStreamsOptions } from './modules/events/stream/event-streams';
import { createApiServer } from './server';

export interface RunningApi {
  url: string;
  /**
   * Answers /readyz with 503 at once and for DRAIN_DELAY_MS (so a load balancer stops sending),
   * then stops accepting, lets in-flight requests finish and closes every connection.
   */
  close(): Promise<void>;
}

/** The API's dependencies and app, built from its settings: `startApi` serves them, the tests drive them in-process. */
export interface ComposedApi {
  app: Express;
  deps: AppDeps;
  database: Database;
  /** Closes what `composeApi` opened (queues, Redis, the store, the database). */
  close(): Promise<void>;
}

export function composeApi(
  config: ApiConfig,
  logger: Logger,
  {
    poolSize,
    keyCacheLifetimeMs = KEY_CACHE_LIFETIME_MS,
    draining = () => false,
    streams: streamOptions,
  }: { poolSize?: number; keyCacheLifetimeMs?: number; draining?: () => boolean; streams?: EventStreamsOptions } = {},
): ComposedApi {
  const database = createDatabase(config.databaseUrl, { poolSize, pooler: config.databasePooler });
  const redis = createRedisConnection(config.redis, 'producer', 'api');
  const producer = createRedisConnection(config.redis, 'producer', 'api-producer');
  const subscriber = createRedisConnection(config.redis, 'subscriber', 'api-subscriber');
  const jobs = new JobScheduler(
    producer,
    queueLayout(config),
    redisErrorReporter(config.redis, (err) => logger.warn({ err }, 'queue unavailable')),
  );
  const publisher = createEventPublisher(jobs, logger, config.eventPublishDelayMs);
  const keyCache = new KeyCache<ResolvedKey>(keyCacheLifetimeMs);
  const keyRevocations = new KeyRevocations(keyCache, redis, subscriber, config.redisPrefix, logger);
  const store = createObjectStore(config.s3);
  const mailer = createMailer(config.mail, logger);
  const unscoped = unscopedData(database);

  const metrics = createMetricsRegistry();
  registerBacklogGauges(metrics, {
    undispatchedEvents: unscoped.countUndispatchedEvents,
    queueJobs: async () => Object.fromEntries(await Promise.all(jobs.queues.map(async (queue) => [queue.name, await queue.getJobCounts()] as const))),
  });

  const data = tenantHandles(database, ({ organizationId }) => ({ onCommitted: (eventIds) => publisher.publish(organizationId, eventIds) }));
  const streams = new EventStreams({ unscoped, data, redis, redisPrefix: config.redisPrefix, cursorSecret: config.cursorSecret, logger }, streamOptions);
  keyRevocations.onChange((organizationId) => {
    streams.recheck(organizationId).catch((err: unknown) => logger.warn({ err }, 'event streams not checked after a key change'));
  });

  const deps: AppDeps = {
    config,
    data,
    unscoped,
    redis,
    jobs,
    publisher,
    keyCache,
    keyRevocations,
    streams,
    logger,
    mailer,
    secrets: new SecretBox(config.secretsKeys),
    store,
    metrics,
    draining,
  };
  return {
    app: createApp(deps),
    deps,
    database,
    async close() {
      streams.closeAll();
      publisher.flush();
      await jobs.close();
      store.close();
      mailer.close();
      redis.disconnect();
      producer.disconnect();
      subscriber.disconnect();
      await database.close();
    },
  };
}

/** The API as it ships: its dependencies built from the settings, the server listening. */
export async function startApi(config: ApiConfig, logger: Logger): Promise<RunningApi> {
  let draining = false;
  // The object store is not asked at start (its SDK would load into every replica): the first upload
  // makes the bucket if missing, and /readyz reports whether it answers.
  const api = composeApi(config, logger, { draining: () => draining });
  const server = createApiServer(api.app).listen(config.port, config.host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
  const { port } = server.address() as AddressInfo;
  const resealing = resealAtStart(api.deps.unscoped, api.deps.secrets, logger);

  return {
    url: `http://${config.host}:${port}`,
    async close() {
      draining = true;
      await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
      // Open event streams end here, not with the server: their clients reconnect elsewhere and resume.
      api.deps.streams.closeAll();
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await closed;
      await resealing;
      await api.close();
    },
  };
}

/**
 * Seals the subscription secrets still in plaintext (written before sealing) and those sealed under
 * SECRETS_KEY_PREVIOUS, in the background: every API start does it, so upgrading and rotating keys
 * need no step of their own. Best effort: what a failure leaves, the next start (or
 * `pnpm cli secrets reseal`) seals, and meanwhile the worker still signs with those values.
 */
async function resealAtStart(data: UnscopedData, secrets: SecretBox, logger: Logger): Promise<void> {
  try {
    const report = await data.resealWebhookSecrets(secrets);
    if (report.sealed + report.resealed > 0) logger.info(report, 'webhook secrets sealed under SECRETS_KEY');
    if (report.unreadable > 0)
      logger.error(
        report,
        'some webhook secrets are sealed under a key that is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS: their subscriptions cannot be signed for until that key is set as SECRETS_KEY_PREVIOUS',
      );
  } catch (err) {
    logger.warn({ err }, 'webhook secrets not sealed at start; the next start, or pnpm cli secrets reseal, seals them');
  }
}

/**
 * Publishes committed events `delayMs` worth at a time, each batch one dispatch job: the longer the
 * gather, the fewer jobs an event shares the fixed cost of. Best effort: if Redis is down the
 * worker's sweep publishes the events later.
 */
function createEventPublisher(jobs: JobScheduler, logger: Logger, delayMs: number): EventPublisher {
  return new EventPublisher(jobs, {
    delayMs,
    maxBatch: 500,
    onError: (err, events) => logger.warn({ err, eventIds: events.map((event) => event.id) }, 'event publish deferred to the outbox sweep'),
  });
}
