import { parseArgs } from 'node:util';
import type { UnscopedData } from '@worktrack/db';
import { createDashboardLink } from '../modules/dashboard-links/create-dashboard-link';
import { callOperation } from '../pipeline';
import type { CommandContext } from './command';
import { operatorCaller } from './operator-caller';
import { UsageError } from './usage-error';

export const dashboardLinkUsage = `pnpm cli dashboard-link --email EMAIL [--org ORG_ID] [--json]
    Prints a one-time dashboard sign-in link for a member, valid 15 minutes; --org when they belong to several organizations.`;

/** `POST /v1/dashboard-links` for the member, through the pipeline. */
export async function dashboardLink(data: UnscopedData, argv: string[], { database, config }: CommandContext): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { email: { type: 'string' }, org: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (!values.email) throw new UsageError('--email is required', dashboardLinkUsage);
  const memberships = await data.membershipsOf(values.email, values.org);
  if (memberships.length === 0) throw new UsageError(`${values.email} is not a member of ${values.org ? `organization ${values.org}` : 'any organization'}`);
  if (memberships.length > 1) {
    const list = memberships.map((m) => `${m.organizationId} (${m.organization.name})`).join(', ');
    throw new UsageError(`${values.email} belongs to several organizations; choose one with --org: ${list}`, dashboardLinkUsage);
  }
  const membership = memberships[0]!;
  const link = await callOperation(createDashboardLink, operatorCaller({ unscoped: data, database, config }, membership));
  if (values.json) {
    console.log(JSON.stringify({ url: link.url, expiresAt: link.expiresAt, organizationId: membership.organizationId, role: membership.role }));
    return;
  }
  console.log(`Sign in to ${membership.organization.name} as ${values.email} (${membership.role}), once, before ${link.expiresAt}:`);
  console.log(link.url);
}
