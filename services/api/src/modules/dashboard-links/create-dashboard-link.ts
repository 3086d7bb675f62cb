import Joi from 'joi';
import { forbidden } from '../../http/errors';
import { roleExceeds } from '../../http/permissions';
import { out } from '../../http/record-fields';
import { defineRoute } from '../../http/route';
import { issueDashboardLink } from './issue-dashboard-link';

const dashboardLinkSchema = Joi.object<{ url: string; expiresAt: string }, true>({
  url: Joi.string().uri().required().description('Opens a dashboard session once, within 15 minutes'),
  expiresAt: out.timestamp(),
}).id('DashboardLink');

/**
 * A sign-in link for the key's own user in the key's organization. The session it opens acts with
 * the user's whole role, so (docs/decisions.md#tenancy-and-keys: a key grants only what it holds) only a live key holding
 * every permission of that role may ask for one; a restricted key must not be worth its user.
 */
export const createDashboardLink = defineRoute({
  operationId: 'createDashboardLink',
  method: 'post',
  path: '/dashboard-links',
  summary: 'A one-time dashboard sign-in link for the key’s user',
  description: 'Needs a live key holding every permission of its user’s role (a `*` key does).',
  tag: 'Dashboard',
  // Every role holds members:read; the handler asks for the rest.
  permission: 'members:read',
  status: 201,
  response: dashboardLinkSchema,
  location: (link) => link.url,
  // It takes no body, and refuses one.
  errors: ['invalid_request'],
  handler: async ({ tenant, deps }) => {
    if (tenant.mode !== 'live') throw forbidden('Dashboard links need a live key');
    if (roleExceeds(tenant.role, tenant.permissions)) throw forbidden(`Dashboard links need a key holding every permission of the ${tenant.role} role`);
    const link = await issueDashboardLink(deps.data(tenant), tenant, deps.config.publicBaseUrl);
    return { url: link.url, expiresAt: link.expiresAt.toISOString() };
  },
});
