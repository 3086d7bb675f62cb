import { randomBytes, randomUUID } from 'node:crypto';
import { createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { dbSystem, startOtlpReceiver, type ReceivedSpan } from '@test-support/otlp-receiver';
import { freePort, runBundled, waitForHttp } from '@test-support/processes';
import { startReceiver, type Receiver } from '@test-support/receiver';
import { call } from '@test-support/shipped-services';
import { waitFor } from '@test-support/wait-for';
import { TEST_ENV } from '@test-support/worker-harness';

// The API and the worker as they ship (the image's bundles, as processes), traced to a real OTLP/HTTP receiver
// in this test, or not traced at all (docs/decisions.md#traces).
const RETRIES_ENV = { WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50,50' };

/** Both processes, started together: a busy machine can take long to start them, the more so traced (every module load is watched for the instrumented ones). */
async function startServices(env: NodeJS.ProcessEnv) {
  const prefix = `wt-test-traces-${randomUUID().slice(0, 8)}`;
  const [port, healthPort] = await Promise.all([freePort(), freePort()]);
  const api = runBundled('api', [], { PORT: String(port), REDIS_PREFIX: prefix, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', ...env });
  const worker = runBundled('worker', [], {
    ...TEST_ENV,
    ...RETRIES_ENV,
    REDIS_PREFIX: prefix,
    WORKER_HEALTH_PORT: String(healthPort),
    LOG_LEVEL: 'info',
    ...env,
  });
  await Promise.all([waitForHttp(`http://127.0.0.1:${port}/healthz`, 120_000), waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 120_000)]).catch(
    (err: Error) => {
      api.kill('SIGKILL');
      worker.kill('SIGKILL');
      throw new Error(`${err.message}\napi: ${api.output()}\nworker: ${worker.output()}`);
    },
  );
  return {
    base: `http://127.0.0.1:${port}`,
    worker,
    stop: () => {
      api.kill('SIGKILL');
      worker.kill('SIGKILL');
    },
  };
}

/** A project with a subscription to `task.created` at the receiver, then a task created with an incoming `traceparent`. */
async function createTracedTask(base: string, org: TestOrg, receiver: Receiver, traceparent: string) {
  const project = await call(base, org.liveKey, 'POST', '/v1/projects', { name: 'Traced' });
  expect(project.status).toBe(201);
  const webhook = await call(base, org.liveKey, 'POST', '/v1/webhooks', { url: receiver.url, events: ['task.created'] });
  expect(webhook.status).toBe(201);
  const task = await call(base, org.liveKey, 'POST', '/v1/tasks', { projectId: project.body!.id, title: 'Follow me' }, { traceparent });
  expect(task.status).toBe(201);
  return { webhookId: webhook.body!.id as string, taskId: task.body!.id as string };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

describe('with an OTLP endpoint set', () => {
  it('continues the incoming traceparent through the outbox and the queue: spans of both services, the webhook request naming its attempt span, the retry linked to it, logs with the ids', async () => {
    const otlp = await startOtlpReceiver();
    const receiver = await startReceiver((n) => ({ status: n === 0 ? 500 : 200 }));
    const services = await startServices({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const org = await createOrg(h.db, { plan: 'pro' });
      const traceId = hex(16);
      const callerSpanId = hex(8);
      const { webhookId, taskId } = await createTracedTask(services.base, org, receiver, `00-${traceId}-${callerSpanId}-01`);
      const [first, retry] = await receiver.waitForCount(2);

      const attempts = await waitFor(async () => {
        const found = otlp.spans.filter((span) => span.traceId === traceId && span.name === 'webhook attempt');
        return found.length >= 2
          ? found.sort((a, b) => Number(a.attributes['worktrack.delivery.attempt']) - Number(b.attributes['worktrack.delivery.attempt']))
          : undefined;
      });
      const trace = otlp.spans.filter((span) => span.traceId === traceId);
      const byService = (service: string) => trace.filter((span) => span.service === service);

      // The API continued the caller's span, named by its route, and wrote to Postgres and Redis within it.
      const server = byService('worktrack-api').find((span) => span.parentSpanId === callerSpanId);
      expect(server).toMatchObject({ name: 'POST /v1/tasks', attributes: { 'http.request.method': 'POST', 'http.route': '/v1/tasks' } });
      const calls = byService('worktrack-api').filter((span) => span.parentSpanId === server!.spanId);
      expect(calls.some((span) => dbSystem(span) === 'postgresql')).toBe(true);
      expect(calls.some((span) => dbSystem(span) === 'redis')).toBe(true);

      // A templated route names its span by the template, not by the ids in the path.
      const [readTraceId, readerSpanId] = [hex(16), hex(8)];
      const read = await call(services.base, org.liveKey, 'GET', `/v1/tasks/${taskId}`, undefined, { traceparent: `00-${readTraceId}-${readerSpanId}-01` });
      expect(read.status).toBe(200);
      const readSpan = await waitFor(async () => otlp.spans.find((span) => span.traceId === readTraceId && span.parentSpanId === readerSpanId));
      expect(readSpan).toMatchObject({ name: 'GET /v1/tasks/:taskId', attributes: { 'http.route': '/v1/tasks/:taskId' } });

      // The worker's fan-out and attempts are spans of the same trace.
      const fanOut = byService('worktrack-worker').find((span) => span.name === 'webhook fan-out');
      expect(fanOut?.attributes).toMatchObject({ 'worktrack.fan_out.deliveries': 1 });
      const [attempt1, attempt2] = attempts as [ReceivedSpan, ReceivedSpan];
      expect(attempt1.service).toBe('worktrack-worker');
      const deliveryId = first!.json.deliveryId;
      expect(attempt1.attributes).toMatchObject({
        'worktrack.organization.id': org.organization.id,
        'worktrack.webhook.id': webhookId,
        'worktrack.delivery.id': deliveryId,
        'worktrack.delivery.attempt': 1,
        'http.response.status_code': 500,
      });
      expect(attempt2.attributes).toMatchObject({ 'worktrack.delivery.id': deliveryId, 'worktrack.delivery.attempt': 2, 'http.response.status_code': 200 });

      // Each webhook request names its attempt's span, and the retry links to the attempt before it.
      expect(first!.headers.traceparent).toBe(`00-${traceId}-${attempt1.spanId}-01`);
      expect(retry!.headers.traceparent).toBe(`00-${traceId}-${attempt2.spanId}-01`);
      expect(attempt1.links).toEqual([]);
      expect(attempt2.links).toEqual([expect.objectContaining({ traceId, spanId: attempt1.spanId })]);

      // The worker's log line of each attempt carries its trace and span.
      const attemptLines = services.worker
        .output()
        .split('\n')
        .filter((line) => line.includes('"delivery attempt"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(attemptLines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ deliveryId, attempt: 1, traceId, spanId: attempt1.spanId }),
          expect.objectContaining({ deliveryId, attempt: 2, traceId, spanId: attempt2.spanId }),
        ]),
      );
    } finally {
      services.stop();
      await Promise.all([otlp.close(), receiver.close()]);
    }
  }, 180_000);
});

describe('with no OTEL_* setting', () => {
  it('sends nothing, not even to the default endpoint, and neither stores nor sends a trace context', async () => {
    // Where an SDK left to its defaults would export: localhost:4318.
    const otlp = await startOtlpReceiver({ port: 4318, host: '::' });
    const receiver = await startReceiver();
    const services = await startServices({});
    try {
      const org = await createOrg(h.db, { plan: 'pro' });
      const traceId = hex(16);
      await createTracedTask(services.base, org, receiver, `00-${traceId}-${hex(8)}-01`);
      const [request] = await receiver.waitForCount(1);
      expect(request!.headers.traceparent).toBeUndefined();
      const event = await h.db.outboxEvent.findFirstOrThrow({
        where: { organizationId: org.organization.id, type: 'task.created' },
        orderBy: { createdAt: 'desc' },
      });
      expect(event.traceparent).toBeNull();
      const attempt = await waitFor(() => h.db.deliveryAttempt.findFirst({ where: { deliveryId: request!.json.deliveryId } }).then((row) => row ?? undefined));
      expect(attempt.traceparent).toBeNull();
      expect(services.worker.output()).not.toContain('traceId');
      expect(otlp.requests()).toBe(0);
    } finally {
      services.stop();
      await Promise.all([otlp.close(), receiver.close()]);
    }
  }, 180_000);
});
