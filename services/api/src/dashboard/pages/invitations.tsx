import type { Request, Response, Router } from 'express';
import type { InvitationPreview } from '@worktrack/db';
import { SIGN_IN_PATH } from '../../modules/dashboard-links/issue-dashboard-link';
import { ACCEPT_PATH, hashInvitationToken } from '../../modules/members/invite-member';
import { validate } from '../../pipeline';
import { joinByInvitation } from '../../modules/members/accept-invitation';
import { acceptInvitationBody } from '../../modules/members/member-schemas';
import { formOf, text } from '../form';
import type { DashboardApp } from '../dashboard-app';
import { heldToken } from '../held-token';
import { problemOf, type Problem } from '../problem';
import { sameOriginOnly } from '../same-origin';
import { createSession, type OpenedSession } from '../session';
import { ProblemSummary, TextField, Time } from '../views/components';
import { renderBarePage } from '../views/render';

/** How long an opened invitation waits for its form: long enough to read the page and type a name. */
const HELD_INVITATION_MS = 3600 * 1000;

function AcceptForm({ invitation, name, problem }: { invitation: InvitationPreview; name?: string; problem?: Problem | undefined }) {
  return (
    <>
      <p>
        {invitation.invitedBy} invited <strong>{invitation.email}</strong> to join <strong>{invitation.organizationName}</strong> as{' '}
        {invitation.role === 'admin' ? 'an' : 'a'} {invitation.role}. The invitation is valid until <Time value={invitation.expiresAt.toISOString()} />.
      </p>
      <form method="post" action={ACCEPT_PATH} aria-label="Accept the invitation" class="card">
        <ProblemSummary problem={problem} />
        <TextField name="name" label="Your name" autocomplete="name" required value={name} problem={problem} />
        <button type="submit">Join {invitation.organizationName}</button>
      </form>
    </>
  );
}

/** The page an invitation's mail links to: the invitee gives their name, joins, and is signed in. */
export function invitationPages(
  router: Router,
  { deps, assets }: DashboardApp,
  { startSession, secure }: { startSession: (res: Response, opened: OpenedSession) => void; secure: boolean },
): void {
  const path = ACCEPT_PATH.replace('/dashboard', '');
  const invitationToken = heldToken({ name: 'wt_invitation', path: ACCEPT_PATH, secure, maxAgeMs: HELD_INVITATION_MS });
  const notWorking = (req: Request, res: Response) => {
    invitationToken.drop(req, res);
    renderBarePage(res, assets, {
      title: 'This invitation does not work',
      status: 400,
      body: (
        <p>
          It was already used, revoked (a newer invitation replaces an older one), or has expired. Ask an admin of the organization to invite you again, or{' '}
          <a href={SIGN_IN_PATH}>sign in</a> if you have already joined.
        </p>
      ),
    });
  };

  router.get(path, async (req, res) => {
    if (typeof req.query.token === 'string' && req.query.token !== '') {
      invitationToken.hold(res, req.query.token);
      res.redirect(303, ACCEPT_PATH);
      return;
    }
    const token = invitationToken.read(req);
    const invitation = token && (await deps.unscoped.signIn.pendingInvitation(hashInvitationToken(token)));
    if (!invitation) return notWorking(req, res);
    renderBarePage(res, assets, { title: `Join ${invitation.organizationName}`, status: 200, body: <AcceptForm invitation={invitation} /> });
  });

  router.post(path, sameOriginOnly(deps.config.publicBaseUrl), async (req, res) => {
    const token = invitationToken.read(req);
    const name = text(formOf(req), 'name');
    try {
      // The API's own validation of the body (a name of 1-200 characters), as POST /invitations/accept has it.
      const body = validate(acceptInvitationBody, { token, name });
      const opened = await joinByInvitation(deps, body, (tx, member) => createSession(tx, member.id));
      invitationToken.drop(req, res);
      startSession(res, opened);
      res.redirect(303, '/dashboard?done=joined');
    } catch (err) {
      const problem = problemOf(err);
      const invitation = problem.param === 'name' && (await deps.unscoped.signIn.pendingInvitation(hashInvitationToken(token)));
      if (!invitation) return notWorking(req, res);
      renderBarePage(res, assets, {
        title: `Join ${invitation.organizationName}`,
        status: 400,
        body: <AcceptForm invitation={invitation} name={name} problem={problem} />,
      });
    }
  });
}
