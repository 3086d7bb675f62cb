import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import type { Tenant } from '../http/auth';
import type { DisabledWebhook } from '@worktrack/db';
import type { Caller } from '../http/route';
import type { DashboardSession } from './session';

/** What an action leaves for the page it redirects to (flash.ts), shown once: a value to copy, or a row's problem. */
export type Flash =
  | { kind: 'shown-once'; label: string; value: string; note?: string; link?: { label: string; href: string } }
  | { kind: 'row-problem'; row: string; message: string };

/** What every signed-in page has: the session, the tenant it acts as, and a CSRF token for its forms. */
export interface DashboardContext {
  session: DashboardSession;
  tenant: Tenant;
  csrfToken: string;
  /** What the action before the redirect left to show once (pages read it through their PageContext). */
  flash?: Flash | undefined;
  /** Subscriptions disabled by failed deliveries: a banner on every page until re-enabled or deleted. */
  disabledWebhooks: DisabledWebhook[];
}

declare global {
  namespace Express {
    interface Request {
      dashboard?: DashboardContext;
    }
  }
}

export function requireDashboard(req: Request): DashboardContext {
  if (!req.dashboard) throw new Error('dashboard page mounted without a session');
  return req.dashboard;
}

/** The caller of API operations for this request. */
export function callerOf(req: Request, res: Response, deps: AppDeps): Caller {
  return { tenant: requireDashboard(req).tenant, via: 'dashboard', deps, req, res };
}
