import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { requireDashboard, type Flash } from './context';

/** Long enough to follow the redirect on a slow link, short enough that an unfollowed one does not linger. */
const FLASH_TTL_SECONDS = 300;
const FLASH_PARAM = 'shown';

const flashKey = (deps: AppDeps, sessionId: string, id: string) => `${deps.config.redisPrefix}:dashboard-flash:${sessionId}:${id}`;
const context = (sessionId: string) => `Dashboard flash ${sessionId}`;

/**
 * Post/redirect/get with a one-time result (docs/decisions.md#dashboard): the action stores what
 * it must show (sealed, as secrets at rest are, and bound to the session) and redirects with 303 to
 * the page with the flash's id; the page takes it with GETDEL. A refresh or the back button asks
 * for the page again, finds nothing, and neither repeats the action nor shows the value twice.
 */
export async function redirectWithFlash(req: Request, res: Response, deps: AppDeps, path: string, flash: Flash): Promise<void> {
  const { session } = requireDashboard(req);
  const id = randomBytes(12).toString('base64url');
  await deps.redis.set(flashKey(deps, session.id, id), deps.secrets.seal(JSON.stringify(flash), context(session.id)), 'EX', FLASH_TTL_SECONDS);
  res.redirect(303, `${path}${path.includes('?') ? '&' : '?'}${FLASH_PARAM}=${id}`);
}

/** The page's flash, if its id is in the address and it was not taken yet; taking it removes it. */
export async function takeFlash(req: Request, deps: AppDeps): Promise<Flash | undefined> {
  const id = req.query[FLASH_PARAM];
  if (typeof id !== 'string' || !/^[\w-]{16}$/.test(id)) return undefined;
  const { session } = requireDashboard(req);
  const sealed = await deps.redis.getdel(flashKey(deps, session.id, id));
  return sealed ? (JSON.parse(deps.secrets.open(sealed, context(session.id))) as Flash) : undefined;
}
