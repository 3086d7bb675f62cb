import { checkWebhookUrl, isBlockedAddress, type ResolveHost } from '../src/index';

/** An IPv4 address, or anything with an IPv6 group separator. */
const IP_ADDRESS = /\d+\.\d+\.\d+\.\d+|[0-9a-f]*::?[0-9a-f]+/i;

describe('isBlockedAddress', () => {
  it.each([
    ['10.0.0.1', 'private 10/8'],
    ['172.16.5.4', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12, top'],
    ['192.168.1.1', 'private 192.168/16'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback /8'],
    ['169.254.169.254', 'link-local, cloud metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT, top'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network 0/8'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fd00::1', 'ULA'],
    ['fc00::1', 'ULA fc00::/7'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['::7f00:1', 'IPv4-compatible (deprecated)'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['[::1]', 'bracketed IPv6 loopback'],
    ['not-an-ip', 'not an IP at all'],
    ['', 'empty'],
  ])('blocks %s (%s)', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['2606:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
  ])('allows %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('checkWebhookUrl', () => {
  const none = { allowedHosts: [] };
  const resolveTo =
    (...addresses: string[]): ResolveHost =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    ['not a url', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    ['ftp://example.com/hook', 'invalid_url'],
    ['http://example.com/hook', 'insecure_protocol'],
    ['http://127.0.0.1:8080/hook', 'insecure_protocol'],
    ['https://user:pass@example.com/hook', 'credentials_in_url'],
    ['https://token@example.com/hook', 'credentials_in_url'],
    ['https://127.0.0.1/hook', 'blocked_address'],
    ['https://127.1/hook', 'blocked_address'],
    ['https://0x7f000001/hook', 'blocked_address'],
    ['https://[::1]/hook', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'blocked_address'],
    ['https://169.254.169.254/latest/meta-data', 'blocked_address'],
    ['https://10.0.0.5:8443/hook', 'blocked_address'],
  ])('refuses %s (%s)', async (url, reason) => {
    const result = await checkWebhookUrl(url, none);
    expect(result).toEqual({ ok: false, reason, message: expect.any(String) });
  });

  it('refuses https://localhost, which resolves to loopback', async () => {
    await expect(checkWebhookUrl('https://localhost/hook', none)).resolves.toMatchObject({
      ok: false,
      reason: 'blocked_address',
    });
  });

  it('accepts allowlisted hosts over http, even on loopback', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/hook', { allowedHosts: ['127.0.0.1'] })).resolves.toEqual({
      ok: true,
    });
    await expect(checkWebhookUrl('https://127.0.0.1/hook', { allowedHosts: ['127.0.0.1'] })).resolves.toEqual({
      ok: true,
    });
    await expect(checkWebhookUrl('http://localhost:3000/hook', { allowedHosts: ['localhost'] })).resolves.toEqual({
      ok: true,
    });
    await expect(checkWebhookUrl('http://[::1]:3000/hook', { allowedHosts: ['[::1]'] })).resolves.toEqual({ ok: true });
  });

  it('matches the allowlist exactly', async () => {
    const options = { allowedHosts: ['localhost'] };
    await expect(checkWebhookUrl('http://127.0.0.1/hook', options)).resolves.toMatchObject({
      reason: 'insecure_protocol',
    });
    await expect(checkWebhookUrl('http://sub.localhost/hook', options)).resolves.toMatchObject({
      reason: 'insecure_protocol',
    });
  });

  it('still refuses credentials on allowlisted hosts', async () => {
    await expect(checkWebhookUrl('http://a:b@127.0.0.1/hook', { allowedHosts: ['127.0.0.1'] })).resolves.toMatchObject({ reason: 'credentials_in_url' });
  });

  it('accepts a public IP literal without DNS', async () => {
    await expect(checkWebhookUrl('https://8.8.8.8/hook', none)).resolves.toEqual({ ok: true });
  });

  it('accepts a hostname whose addresses are all public', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/in', {
      ...none,
      resolve: resolveTo('93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'),
    });
    expect(result).toEqual({ ok: true });
  });

  it('refuses a hostname with any blocked address among its records', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/in', {
      ...none,
      resolve: resolveTo('93.184.216.34', '10.0.0.7'),
    });
    expect(result).toEqual({ ok: false, reason: 'blocked_address', message: expect.any(String) });
  });

  it('never says what a refused name resolves to, and names the setting that allows a local receiver', async () => {
    const refusals = await Promise.all([
      checkWebhookUrl('https://internal.example/in', { ...none, resolve: resolveTo('10.0.0.7') }),
      checkWebhookUrl('https://internal6.example/in', { ...none, resolve: resolveTo('fd00::7') }),
      checkWebhookUrl('https://localhost/hook', none),
      checkWebhookUrl('https://10.0.0.5/hook', none),
    ]);
    for (const result of refusals) {
      expect(result).toMatchObject({ ok: false, reason: 'blocked_address' });
      const { message } = result as { message: string };
      expect(message).toContain('not a public address');
      expect(message).toContain('WEBHOOK_ALLOWED_HOSTS');
      expect(message).not.toMatch(IP_ADDRESS);
    }
  });

  it('names the setting that allows an http receiver', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/hook', none)).resolves.toEqual({
      ok: false,
      reason: 'insecure_protocol',
      message: expect.stringContaining('WEBHOOK_ALLOWED_HOSTS'),
    });
  });

  it('reports DNS failures', async () => {
    const failing: ResolveHost = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    await expect(checkWebhookUrl('https://nowhere.example/in', { ...none, resolve: failing })).resolves.toEqual({
      ok: false,
      reason: 'dns_failure',
      message: expect.stringContaining('ENOTFOUND'),
    });
    await expect(checkWebhookUrl('https://empty.example/in', { ...none, resolve: resolveTo() })).resolves.toMatchObject({
      reason: 'dns_failure',
    });
  });
});
