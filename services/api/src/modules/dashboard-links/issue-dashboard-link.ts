import { createHash, randomBytes } from 'node:crypto';
import type { TenantTx, UnscopedTx } from '@worktrack/db';

/** docs/decisions.md#dashboard: a sign-in link is valid 15 minutes, once. */
export const DASHBOARD_LINK_TTL_MS = 15 * 60 * 1000;

/** Links and sessions store only this hash of their token. */
export const hashDashboardToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const SIGN_IN_PATH = '/dashboard/sign-in';

export interface DashboardLink {
  url: string;
  expiresAt: Date;
}

/** A one-time link that opens a dashboard session for this member of this organization. */
export async function issueDashboardLink(
  data: TenantTx | UnscopedTx,
  member: { organizationId: string; userId: string },
  publicBaseUrl: string,
): Promise<DashboardLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + DASHBOARD_LINK_TTL_MS);
  await data.dashboardLinks.create({ organizationId: member.organizationId, userId: member.userId, tokenHash: hashDashboardToken(token), expiresAt });
  return { url: `${publicBaseUrl.replace(/\/+$/, '')}${SIGN_IN_PATH}?token=${token}`, expiresAt };
}
