import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { buildDeliveryHeaders, checkWebhookUrl, verifyBodySignature, type ResolveHost } from '../src/index';
import { WebhookDeliverer, type WebhookDelivererOptions } from '../src/deliver';
import { CLOSED_PORT } from '@test-support/processes';
import { deferred, receiversClosedAfterEach } from '@test-support/receiver';

const secret = 'subscription-secret';
const body = JSON.stringify({ event: 'task.created', deliveryId: 'dlv_01', data: { id: 'tsk_1' } });
const headers = (): Record<string, string> => buildDeliveryHeaders({ secret, deliveryId: 'dlv_01', eventType: 'task.created', body });

const receiver = receiversClosedAfterEach();
const open: WebhookDeliverer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((created) => created.close()));
});

function deliverer(options: Partial<WebhookDelivererOptions> = {}): WebhookDeliverer {
  const created = new WebhookDeliverer({ timeoutMs: 300, allowedHosts: ['127.0.0.1'], ...options });
  open.push(created);
  return created;
}

describe('WebhookDeliverer.deliver', () => {
  it('POSTs the signed body and reports a 200 as ok', async () => {
    const target = await receiver({ body: 'thanks' });
    const result = await deliverer().deliver({ url: `${target.origin}/hooks?x=1`, body, headers: headers() });

    expect(result).toMatchObject({ ok: true, status: 200, error: null, responseBody: 'thanks' });
    expect(result.responseTimeMs).toBeGreaterThanOrEqual(0);
    expect(target.received).toHaveLength(1);
    const [received] = target.received;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hooks?x=1');
    expect(received?.body).toBe(body);
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['user-agent']).toBe('Worktrack-Webhooks/1.0');
    expect(received?.headers['x-service-event']).toBe('task.created');
    expect(received?.headers['x-service-delivery']).toBe('dlv_01');
    expect(verifyBodySignature(secret, received?.body ?? '', received?.headers['x-service-signature'] as string)).toBe(true);
    const standard = new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`);
    expect(standard.verify(received?.body ?? '', received?.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('reports a 204 as ok', async () => {
    const target = await receiver({ status: 204, body: '' });
    const result = await deliverer().deliver({ url: target.origin, body, headers: headers() });
    expect(result).toMatchObject({ ok: true, status: 204, error: null, responseBody: '' });
  });

  it('reports a 500 as an http_status failure with the (bounded) response body', async () => {
    const target = await receiver({ status: 500, body: 'boom' });
    const result = await deliverer().deliver({ url: target.origin, body, headers: headers() });
    expect(result).toMatchObject({ ok: false, status: 500, error: 'http_status', responseBody: 'boom' });
    expect(result.message).toContain('500');
  });

  it('does not follow a 302 and reports a redirect failure', async () => {
    const elsewhere = await receiver();
    const target = await receiver({ status: 302, headers: { Location: `${elsewhere.origin}/stolen` }, body: '' });
    const result = await deliverer().deliver({ url: target.origin, body, headers: headers() });

    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect' });
    expect(result.message).toContain(`${elsewhere.origin}/stolen`);
    expect(target.received).toHaveLength(1);
    expect(elsewhere.load.connections).toBe(0);
  });

  it('fails with timeout when the receiver answers after the deadline', async () => {
    const release = deferred();
    const target = await receiver({ until: release.promise, body: 'too late' });
    try {
      const started = performance.now();
      const result = await deliverer({ timeoutMs: 300 }).deliver({ url: target.origin, body, headers: headers() });
      const took = performance.now() - started;

      expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
      expect(result.responseTimeMs).toBeGreaterThanOrEqual(290);
      expect(result.responseTimeMs).toBeLessThan(1_500);
      expect(took).toBeLessThan(1_500);
      expect(target.received).toHaveLength(1); // it was sent; only the answer was late
    } finally {
      release.resolve();
    }
  });

  it('keeps a 2xx whose body is still streaming at the deadline as ok, and returns at the deadline', async () => {
    const release = deferred();
    const target = await receiver(() => (res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      void release.promise.then(() => res.end());
    });
    try {
      const result = await deliverer({ timeoutMs: 300 }).deliver({ url: target.origin, body, headers: headers() });
      expect(result).toMatchObject({ ok: true, status: 200, error: null, responseBody: 'partial' });
      expect(result.responseTimeMs).toBeGreaterThanOrEqual(290);
      expect(result.responseTimeMs).toBeLessThan(1_500);
    } finally {
      release.resolve();
    }
  });

  it('reports connection refused as connection_error', async () => {
    const result = await deliverer().deliver({ url: `http://127.0.0.1:${CLOSED_PORT}/`, body, headers: headers() });
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection_error' });
    expect(result.message).toContain('ECONNREFUSED');
  });

  it('reads at most maxResponseBytes of a huge body and drops the connection', async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const served = deferred<{ written: number; finished: boolean }>();
    const target = await receiver(() => (res) => {
      res.writeHead(200, { 'Content-Length': String(total) });
      let written = 0;
      let finished = false;
      res.on('finish', () => (finished = true));
      res.on('close', () => served.resolve({ written, finished }));
      const pump = (): void => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (written >= total) res.end();
      };
      pump();
    });

    const started = performance.now();
    const result = await deliverer({ timeoutMs: 5_000, maxResponseBytes: 64 * 1024 }).deliver({
      url: target.origin,
      body,
      headers: headers(),
    });
    const took = performance.now() - started;

    expect(result).toMatchObject({ ok: true, status: 200, error: null, responseBodyTruncated: true });
    expect(result.responseBody).toHaveLength(64 * 1024);
    expect(took).toBeLessThan(2_000); // streaming all 50 MB is what must not happen
    const { written, finished } = await served.promise;
    expect(finished).toBe(false);
    expect(written).toBeLessThan(total / 4);
  });

  it('reuses keep-alive connections across deliveries', async () => {
    const target = await receiver();
    const client = deliverer();
    for (let i = 0; i < 10; i += 1) {
      await expect(client.deliver({ url: target.origin, body, headers: headers() })).resolves.toMatchObject({ ok: true });
    }
    expect(target.received).toHaveLength(10);
    // undici may open a second socket when a request is queued just as the first one
    // completes; what matters is that connections are reused, not one per delivery.
    expect(target.load.connections).toBeLessThanOrEqual(2);
  });

  it('lets userAgent override the header', async () => {
    const target = await receiver();
    await deliverer({ userAgent: 'Custom/2' }).deliver({ url: target.origin, body, headers: headers() });
    expect(target.received[0]?.headers['user-agent']).toBe('Custom/2');
  });

  it.each([['not a url'], ['ftp://127.0.0.1/'], ['https://u:p@example.com/']])('refuses %s as invalid_url', async (url) => {
    await expect(deliverer().deliver({ url, body, headers: headers() })).resolves.toMatchObject({
      ok: false,
      status: null,
      error: 'invalid_url',
    });
  });

  describe('SSRF guard', () => {
    it('refuses http to a host that is not allowlisted (invalid_url), sending nothing', async () => {
      const target = await receiver();
      const result = await deliverer({ allowedHosts: [] }).deliver({ url: target.origin, body, headers: headers() });
      expect(result).toMatchObject({ ok: false, error: 'invalid_url' });
      expect(target.load.connections).toBe(0);
    });

    it('refuses a 127.0.0.1 receiver without the allowlist (blocked_address), which never sees a connection', async () => {
      const target = await receiver();
      const result = await deliverer({ allowedHosts: [] }).deliver({
        url: `https://127.0.0.1:${target.port}/`,
        body,
        headers: headers(),
      });
      expect(result).toMatchObject({ ok: false, status: null, error: 'blocked_address' });
      expect(target.load.connections).toBe(0);
    });

    it('checks resolved addresses at connect time: https://localhost is blocked', async () => {
      const target = await receiver();
      const result = await deliverer({ allowedHosts: [] }).deliver({
        url: `https://localhost:${target.port}/`,
        body,
        headers: headers(),
      });
      expect(result).toMatchObject({ ok: false, status: null, error: 'blocked_address' });
      expect(result.message).toContain('not a public address');
      expect(result.message).not.toMatch(/127\.0\.0\.1|::1/);
      expect(target.load.connections).toBe(0);
    });

    it('exempts allowlisted hostnames at connect time', async () => {
      const target = await receiver();
      const result = await deliverer({ allowedHosts: ['localhost'] }).deliver({
        url: `http://localhost:${target.port}/`,
        body,
        headers: headers(),
      });
      // localhost may resolve to ::1 first, where nothing listens; then 127.0.0.1 is tried.
      expect(result).toMatchObject({ ok: true, status: 200 });
    });

    it('defeats DNS rebinding: a name that was public when checked but resolves to loopback at delivery', async () => {
      const target = await receiver();
      let calls = 0;
      const rebinding: ResolveHost = async () => {
        calls += 1;
        return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      };
      const url = `https://rebind.example:${target.port}/`;

      await expect(checkWebhookUrl(url, { allowedHosts: [], resolve: rebinding })).resolves.toEqual({ ok: true });
      const result = await deliverer({ allowedHosts: [], resolve: rebinding }).deliver({ url, body, headers: headers() });

      expect(result).toMatchObject({ ok: false, status: null, error: 'blocked_address' });
      expect(calls).toBe(2);
      expect(target.load.connections).toBe(0);
    });
  });
});

describe('WebhookDeliverer options', () => {
  it('rejects a non-positive timeout', () => {
    expect(() => new WebhookDeliverer({ timeoutMs: 0 })).toThrow(RangeError);
  });
});
