import { loadApiConfig } from '@worktrack/config';

describe('EVENT_PUBLISH_DELAY_MS', () => {
  it('gathers events for 5 ms unless told otherwise; takes 0 to 1000', () => {
    expect(loadApiConfig({}).eventPublishDelayMs).toBe(5);
    expect(loadApiConfig({ EVENT_PUBLISH_DELAY_MS: '0' }).eventPublishDelayMs).toBe(0);
    expect(loadApiConfig({ EVENT_PUBLISH_DELAY_MS: '1000' }).eventPublishDelayMs).toBe(1_000);
    for (const refused of ['-1', '1001', '2.5', 'soon']) expect(() => loadApiConfig({ EVENT_PUBLISH_DELAY_MS: refused })).toThrow(/EVENT_PUBLISH_DELAY_MS/);
  });
});
