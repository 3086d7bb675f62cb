import { WebhookDeliverer } from '../src/deliver';
import { startReceiver, type Receiver } from '@test-support/receiver';

let target: Receiver;
const deliverer = new WebhookDeliverer({ timeoutMs: 1_000, allowedHosts: ['127.0.0.1'] });

beforeAll(async () => {
  target = await startReceiver({
    status: 503,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '4', 'Retry-After': '120', 'Set-Cookie': 'a=b', 'X-Internal': 'secret' },
    body: 'busy',
  });
});
afterAll(async () => {
  await Promise.all([target.close(), deliverer.close()]);
});

describe('recorded response headers', () => {
  it('keeps content-type, content-length and retry-after, and nothing else', async () => {
    const result = await deliverer.deliver({ url: `${target.origin}/hooks`, body: '{}', headers: {} });
    expect(result).toMatchObject({ ok: false, status: 503, responseBody: 'busy' });
    expect(result.responseHeaders).toEqual({ 'content-type': 'text/plain; charset=utf-8', 'content-length': '4', 'retry-after': '120' });
  });

  it('records none when no response arrived', async () => {
    const result = await deliverer.deliver({ url: 'http://127.0.0.1:1/hooks', body: '{}', headers: {} });
    expect(result.error).toBe('connection_error');
    expect(result.responseHeaders).toBeUndefined();
  });
});
