import { loadApiConfig, loadWorkerConfig } from '../src/index';

describe("PUBLIC_BASE_URL's default and its warning", () => {
  it('is the address the API listens on (HOST, PORT), in the API, the CLI and the worker alike', () => {
    for (const load of [loadApiConfig, loadWorkerConfig]) {
      expect(load({}).publicBaseUrl).toBe('http://127.0.0.1:3000');
      expect(load({ PORT: '3400' }).publicBaseUrl).toBe('http://127.0.0.1:3400');
      expect(load({ HOST: 'localhost', PORT: '3400' }).publicBaseUrl).toBe('http://localhost:3400');
      // Listening on every interface: this machine's own address is where a link opens.
      expect(load({ HOST: '0.0.0.0', PORT: '3400' }).publicBaseUrl).toBe('http://127.0.0.1:3400');
      expect(load({ HOST: '::1', PORT: '3400' }).publicBaseUrl).toBe('http://[::1]:3400');
      expect(load({ PORT: '3400', PUBLIC_BASE_URL: 'https://tasks.example.com/' }).publicBaseUrl).toBe('https://tasks.example.com');
    }
  });

  it('warns when PUBLIC_BASE_URL names this machine at another port than the API listens on, and only then', () => {
    expect(loadApiConfig({ PORT: '3400', PUBLIC_BASE_URL: 'http://127.0.0.1:3000' }).publicBaseUrlWarning).toBe(
      "PUBLIC_BASE_URL (http://127.0.0.1:3000) names this machine at port 3000, but the API listens on http://127.0.0.1:3400 (HOST, PORT), so links in mails and sign-in links lead nowhere: unset PUBLIC_BASE_URL to use the API's address, or make them agree",
    );
    expect(loadApiConfig({ PUBLIC_BASE_URL: 'http://localhost' }).publicBaseUrlWarning).toMatch(
      /^PUBLIC_BASE_URL \(http:\/\/localhost\) names this machine at port 80,/,
    );
    for (const agreeing of [
      { PORT: '3400', PUBLIC_BASE_URL: 'http://localhost:3400' },
      { PORT: '3400' },
      // A proxy or a domain in front: the deployment's to know.
      { HOST: '0.0.0.0', PORT: '3000', PUBLIC_BASE_URL: 'https://tasks.example.com' },
    ])
      expect(loadApiConfig(agreeing).publicBaseUrlWarning).toBeUndefined();
  });
});
