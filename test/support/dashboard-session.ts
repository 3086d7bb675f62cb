import request from 'supertest';
import type { Harness } from './api-harness';
import { issueDashboardLink } from '../../services/api/src/modules/dashboard-links/issue-dashboard-link';

/** The path and query of a sign-in link, to open against the app in-process. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

export function linkFor(h: Harness, member: { organizationId: string; userId: string }) {
  return issueDashboardLink(h.deps.unscoped, member, h.deps.config.publicBaseUrl);
}

/** A browser-like client (it keeps cookies) signed in to the dashboard as this member. */
export async function signedIn(h: Harness, member: { organizationId: string; userId: string }) {
  const agent = request.agent(h.app);
  const res = await agent.get(pathOf((await linkFor(h, member)).url));
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return agent;
}

/** The CSRF token a page's forms carry. */
export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}
