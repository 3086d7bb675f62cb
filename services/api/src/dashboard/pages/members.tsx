import type { Request, Response, Router } from 'express';
import { Role } from '@worktrack/db';
import type { MemberRecord } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import type { InvitationRecord } from '../../modules/members/invitation-record';
import { acceptUrl, inviteMember } from '../../modules/members/invite-member';
import { listInvitations } from '../../modules/members/list-invitations';
import { listMembers } from '../../modules/members/list-members';
import { removeMember } from '../../modules/members/remove-member';
import { revokeInvitation } from '../../modules/members/revoke-invitation';
import { updateMember } from '../../modules/members/update-member';
import { callerOf, requireDashboard } from '../context';
import { formOf, queryOf, text, type Form } from '../form';
import { redirectWithFlash } from '../flash';
import { redirectDone } from '../notices';
import { rowAction } from '../row-action';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import {
  ColumnHeads,
  ActionButton,
  Badge,
  optionsOf,
  Pager,
  PostForm,
  ProblemSummary,
  RowProblem,
  Scroll,
  SelectField,
  TextField,
  Time,
} from '../views/components';
import { useCan, usePage } from '../views/page-context';
import { renderPage } from '../views/render';

const PATH = '/dashboard/members';
const ROLES = optionsOf(Object.values(Role));

function MemberTable({ members }: { members: Envelope<MemberRecord> }) {
  const can = useCan();
  const { session } = usePage();
  return (
    <>
      <Scroll label="Members">
        <table>
          <caption>Members</caption>
          <ColumnHeads names={['Member', 'Role', 'Joined', can('members:write') && 'Remove']} />
          <tbody>
            {members.data.map((member) => (
              <tr>
                <th scope="row">
                  {member.name ?? member.email}
                  {member.name && <div class="muted">{member.email}</div>}
                  {member.id === session.userId && <span class="tag">you</span>}
                  <RowProblem row={member.id} />
                </th>
                <td>
                  {can('members:write') ? (
                    <PostForm action={`${PATH}/${member.id}/role`} class="inline" label={`Role of ${member.email}`}>
                      <label class="visually-hidden" for={`role-${member.id}`}>
                        Role of {member.email}
                      </label>
                      <select id={`role-${member.id}`} name="role">
                        {ROLES.map((role) => (
                          <option value={role.value} selected={role.value === member.role}>
                            {role.label}
                          </option>
                        ))}
                      </select>{' '}
                      <button type="submit" class="secondary" aria-label={`Change the role of ${member.email}`}>
                        Change
                      </button>
                    </PostForm>
                  ) : (
                    <Badge value={member.role} />
                  )}
                </td>
                <td>
                  <Time value={member.joinedAt} />
                </td>
                {can('members:write') && (
                  <td>
                    <ActionButton
                      action={`${PATH}/${member.id}/remove`}
                      label="Remove"
                      name={`Remove ${member.email}`}
                      confirm={`Remove ${member.email}? Their keys and sessions stop working at once.`}
                      danger
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <Pager path={PATH} query={{}} pagination={members.pagination} />
    </>
  );
}

function Invitations({ invitations }: { invitations: Envelope<InvitationRecord> }) {
  const can = useCan();
  if (invitations.data.length === 0) return <p>No pending invitations.</p>;
  return (
    <Scroll label="Pending invitations">
      <table>
        <caption>Pending invitations</caption>
        <ColumnHeads names={['Email', 'Role', 'Expires', can('members:write') && 'Revoke']} />
        <tbody>
          {invitations.data.map((invitation) => (
            <tr>
              <th scope="row">
                {invitation.email}
                <RowProblem row={invitation.id} />
              </th>
              <td>
                <Badge value={invitation.role} />
              </td>
              <td>
                <Time value={invitation.expiresAt} />
              </td>
              {can('members:write') && (
                <td>
                  <ActionButton
                    action={`${PATH}/invitations/${invitation.id}/revoke`}
                    label="Revoke"
                    name={`Revoke the invitation of ${invitation.email}`}
                    danger
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

function InviteForm({ values, problem }: { values: Form; problem?: Problem | undefined }) {
  return (
    <PostForm action={`${PATH}/invite`} label="Invite a member">
      <h2>Invite a member</h2>
      <ProblemSummary problem={problem} />
      <TextField name="email" type="email" label="Email" required value={text(values, 'email')} problem={problem} />
      <SelectField name="role" label="Role" options={ROLES} value={text(values, 'role') || 'member'} problem={problem} />
      <button type="submit">Invite</button>
    </PostForm>
  );
}

/** Members and invitations: invite, revoke, change a role, remove (members:write), else read only. */
export function memberPages(router: Router, { deps, assets }: DashboardApp): void {
  async function show(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
    const caller = callerOf(req, res, deps);
    const [members, invitations] = await Promise.all([
      callOperation(listMembers, caller, { query: queryOf(req, ['offset']) }),
      callOperation(listInvitations, caller, { query: { limit: 100 } }),
    ]);
    const canWrite = requireDashboard(req).tenant.permissions.has('members:write');
    renderPage(req, res, assets, {
      title: 'Members',
      section: 'members',
      status: extra.status ?? 200,
      body: (
        <>
          <div class="split">
            <section>
              <MemberTable members={members} />
              <Invitations invitations={invitations} />
            </section>
            {canWrite && <InviteForm values={extra.values ?? {}} problem={extra.problem} />}
          </div>
        </>
      ),
    });
  }

  router.get('/members', (req, res) => show(req, res));

  router.post('/members/invite', async (req, res) => {
    const values = formOf(req);
    try {
      const invitation = await callOperation(inviteMember, callerOf(req, res, deps), { body: { email: text(values, 'email'), role: text(values, 'role') } });
      await redirectWithFlash(req, res, deps, `${PATH}?done=invitation-sent`, {
        kind: 'shown-once',
        label: `Invitation link for ${invitation.email}`,
        value: acceptUrl(deps.config.publicBaseUrl, invitation.token),
        note: 'It was mailed to them. Should the mail not arrive, pass this link on yourself: it is shown this once, works once, within 7 days.',
      });
    } catch (err) {
      const problem = problemOf(err);
      await show(req, res, { status: problem.status, values, problem });
    }
  });

  const invitationRow = (req: Request) => String(req.params.invitationId);
  const memberRow = (req: Request) => String(req.params.userId);

  router.post(
    '/members/invitations/:invitationId/revoke',
    rowAction(deps, PATH, invitationRow, async (req, res) => {
      await callOperation(revokeInvitation, callerOf(req, res, deps), { params: req.params });
      redirectDone(res, PATH, 'invitation-revoked');
    }),
  );

  router.post(
    '/members/:userId/role',
    rowAction(deps, PATH, memberRow, async (req, res) => {
      await callOperation(updateMember, callerOf(req, res, deps), { params: req.params, body: { role: text(formOf(req), 'role') } });
      redirectDone(res, PATH, 'member-updated');
    }),
  );

  router.post(
    '/members/:userId/remove',
    rowAction(deps, PATH, memberRow, async (req, res) => {
      await callOperation(removeMember, callerOf(req, res, deps), { params: req.params });
      redirectDone(res, PATH, 'member-removed');
    }),
  );
}
