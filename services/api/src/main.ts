import { once } from 'node:events';
import { createLogger, loadApiConfig, loadDotEnv, onShutdown } from '@worktrack/config';
import { createDb } from '@worktrack/db';
import { createRedisConnection, JobScheduler } from '@worktrack/queue';
import { createObjectStore } from '@worktrack/storage';
import { createApp } from './app';
import { createApiServer } from './server';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadApiConfig();
  const logger = createLogger(config.logLevel, 'api');
  const db = createDb(config.databaseUrl);
  const redis = createRedisConnection(config.redisUrl, 'producer', 'api');
  const producer = createRedisConnection(config.redisUrl, 'producer', 'api-producer');
  const jobs = new JobScheduler(producer, config.redisPrefix, (err) => logger.warn({ err }, 'queue unavailable'));

  const store = createObjectStore(config.s3);
  await store.ensureBucket().catch((err: unknown) => logger.warn({ err }, 'object store unreachable at boot; file endpoints answer 503 until it is'));

  const app = createApp({ config, db, redis, jobs, logger, store });
  const server = createApiServer(app).listen(config.port, config.host);
  await once(server, 'listening');
  logger.info({ url: `http://${config.host}:${config.port}` }, 'api listening');

  onShutdown(logger, async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await closed;
    await jobs.close();
    store.close();
    redis.disconnect();
    producer.disconnect();
    await db.$disconnect();
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
