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

/**
 * Opens a sign-in link and presses its page's button, as a person would: the session starts at the
 * POST. The link's cookie is sent by hand, as a browser would send it even where the app names an
 * https address (the in-process client keeps Secure cookies to itself over http).
 */
export async function followLink(agent: request.Agent, url: string) {
  const opened = await agent.get(pathOf(url));
  const held = ((opened.headers['set-cookie'] as unknown as string[] | undefined) ?? []).find((c) => c.startsWith('wt_link='));
  if (opened.status !== 303 || !held) throw new Error(`the sign-in link answered ${opened.status}`);
  return agent.post(opened.headers.location!).set('Cookie', held.split(';')[0]!).type('form').send({});
}

/** A browser-like client (it keeps cookies) signed in to the dashboard as this member. */
export async function signedIn(h: Harness, member: { organizationId: string; userId: string }) {
  const agent = request.agent(h.app);
  const res = await followLink(agent, (await linkFor(h, member)).url);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return agent;
}

/** The CSRF token a page's forms carry. */
export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}
