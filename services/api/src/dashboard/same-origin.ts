import type { RequestHandler } from 'express';
import { forbidden } from '../http/errors';

/**
 * The forms posted before a session exists (sign-in by email or with a link, accepting an invitation)
 * have no session to bind a CSRF token to: they are refused when the browser says they come from
 * another site (Fetch Metadata, else Origin), so no page elsewhere can sign a visitor in as someone
 * else. `Origin: null` (a sandboxed frame, a `data:` page, a redirect across sites) is no origin of
 * ours: the dashboard's pages send their own origin with their forms (Referrer-Policy same-origin).
 */
export function sameOriginOnly(publicBaseUrl: string): RequestHandler {
  const origin = new URL(publicBaseUrl).origin;
  return (req, _res, next) => {
    const site = req.get('Sec-Fetch-Site');
    const from = req.get('Origin');
    const crossSite = site !== undefined ? site !== 'same-origin' && site !== 'none' : from !== undefined && from !== origin;
    next(crossSite ? forbidden('This form did not come from this dashboard. Open the dashboard and try again.') : undefined);
  };
}
