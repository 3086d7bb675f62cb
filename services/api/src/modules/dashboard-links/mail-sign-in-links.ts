import { signInMail } from '@worktrack/mail';
import type { AppDeps } from '../../deps';
import { issueDashboardLink } from './issue-dashboard-link';

/**
 * Sign-in by email (docs/decisions.md#email-and-invitations): mails the address one
 * one-time link per organization it is a member of, and nothing when it is none's.
 */
export async function mailSignInLinks(deps: Pick<AppDeps, 'unscoped' | 'mailer' | 'config'>, email: string): Promise<void> {
  const memberships = await deps.unscoped.signIn.membershipsOfEmail(email);
  if (memberships.length === 0) return;
  const links = await Promise.all(
    memberships.map(async (membership) => ({
      organizationName: membership.organizationName,
      url: (await issueDashboardLink(deps.unscoped, membership, deps.config.publicBaseUrl)).url,
    })),
  );
  await deps.mailer.send(signInMail(email, links));
}
