import type { RequestHandler } from 'express';

/** Two years, with subdomains: as long as browsers' preload lists ask. */
const HSTS = 'max-age=63072000; includeSubDomains';

/**
 * docs/decisions.md#signing-in-safely: every answer (the dashboard, /docs, the API, errors) is framed
 * by nobody and loads nothing from outside the service; the referrer stays within the service (so a
 * form's `Origin` names it); over https, browsers are told never to use plain http.
 * `data:` images: the API reference's stylesheet draws its icons with them.
 */
export function securityHeaders(publicBaseUrl: string): RequestHandler {
  const https = new URL(publicBaseUrl).protocol === 'https:';
  return (_req, res, next) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    if (https) res.setHeader('Strict-Transport-Security', HSTS);
    next();
  };
}
