import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { Client } from 'pg';
import request from 'supertest';
import { verify } from '@octokit/webhooks-methods';
import type { Role } from '@worktrack/db';
import { startReceiver, type Received } from '@test-support/receiver';
import { startTestWorker } from '@test-support/worker-harness';
import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { itEnforcesAccess } from '@test-support/access-checks';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const WEEK_MS = 7 * 24 * 3600 * 1000;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let memberId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  memberId = (await addMember(h.db, org, { role: 'member' })).userId;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

/** The rights of the guest and member roles (docs/decisions.md#tenancy-and-keys). */
const GUEST_RIGHTS = ['tasks:read', 'projects:read', 'members:read', 'comments:read', 'comments:write', 'files:read', 'events:read'] as const;
const MEMBER_RIGHTS = [...GUEST_RIGHTS, 'tasks:write', 'projects:write', 'files:write'] as const;

let inviteCounter = 0;
const freshEmail = () => `invitee-${Date.now().toString(36)}-${(inviteCounter += 1)}@example.com`;

async function invite(owner: TestOrg, role: Role = 'member', email = freshEmail(), key = owner.liveKey) {
  const res = await as(h.app, key).post('/v1/members/invite', { email, role });
  expect(res.status).toBe(201);
  return res.body as { id: string; email: string; role: Role; token: string };
}

const accept = (body: object) => request(h.app).post('/v1/invitations/accept').send(body);

/** Invites and accepts: a new member of `owner` with the given role and their first key. */
async function join(owner: TestOrg, role: Role, name = 'Newcomer') {
  const { token } = await invite(owner, role);
  const res = await accept({ token, name });
  expect(res.status).toBe(201);
  return res.body as { member: { id: string }; apiKey: { key: string } };
}

describe('GET /v1/members', () => {
  let owner: TestOrg;
  let guestId: string;
  let plainId: string;

  beforeAll(async () => {
    owner = await createOrg(h.db);
    plainId = (await addMember(h.db, owner, { role: 'member' })).userId;
    guestId = (await addMember(h.db, owner, { role: 'guest' })).userId;
  });

  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/members', permission: 'members:read' }), { namesResource: false });

  it('lists the members in the pagination envelope with exactly the member record', async () => {
    const res = await as(h.app, owner.liveKey).get('/v1/members');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        { id: owner.user.id, email: owner.user.email, name: null, role: 'admin', joinedAt: expect.stringMatching(ISO) },
        { id: plainId, email: `${plainId}@example.com`, name: 'Member', role: 'member', joinedAt: expect.stringMatching(ISO) },
        { id: guestId, email: `${guestId}@example.com`, name: 'Member', role: 'guest', joinedAt: expect.stringMatching(ISO) },
      ]),
    );
  });

  it('pages with limit and offset', async () => {
    const all = (await as(h.app, owner.liveKey).get('/v1/members')).body.data.map((m: { id: string }) => m.id);
    const page = await as(h.app, owner.liveKey).get('/v1/members?limit=1&offset=1');
    expect(page.body.data.map((m: { id: string }) => m.id)).toEqual([all[1]]);
    expect(page.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it('filters by role', async () => {
    const res = await as(h.app, owner.liveKey).get('/v1/members?role=guest');
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([guestId]);
    expect(res.body.pagination.total).toBe(1);
  });

  it("never lists another organization's members", async () => {
    const res = await as(h.app, otherOrg.liveKey).get('/v1/members');
    expect(res.body.data.map((m: { id: string }) => m.id)).not.toContain(plainId);
  });

  it.each([
    ['role=owner', 'role'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['email=x', 'email'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, owner.liveKey).get(`/v1/members?${query}`), 400, 'invalid_request', param);
  });
});

describe('POST /v1/members/invite', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/members/invite', permission: 'members:write', body: { email: freshEmail(), role: 'member' } }), {
    namesResource: false,
  });

  it('answers 201 with the pending invitation and its token, valid 7 days', async () => {
    const email = freshEmail();
    const t0 = Date.now();
    const res = await as(h.app, org.liveKey).post('/v1/members/invite', { email, role: 'guest' });
    const t1 = Date.now();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^inv_[0-9A-Z]{26}$/),
      email,
      role: 'guest',
      status: 'pending',
      invitedBy: org.user.id,
      expiresAt: expect.stringMatching(ISO),
      createdAt: expect.stringMatching(ISO),
      token: expect.any(String),
    });
    expect(Date.parse(res.body.expiresAt)).toBeGreaterThanOrEqual(t0 + WEEK_MS - 1_000);
    expect(Date.parse(res.body.expiresAt)).toBeLessThanOrEqual(t1 + WEEK_MS + 1_000);
  });

  it('stores only a hash of the token', async () => {
    const { id, token } = await invite(org);
    const stored = await h.db.invitation.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
  });

  it('normalizes the email to lower case', async () => {
    const res = await as(h.app, org.liveKey).post('/v1/members/invite', { email: '  Mixed.Case@Example.COM ', role: 'member' });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe('mixed.case@example.com');
  });

  it.each([
    [{ role: 'member' }, 'email'],
    [{ email: 'not-an-email', role: 'member' }, 'email'],
    [{ email: 42, role: 'member' }, 'email'],
    [{ email: 'a@example.com' }, 'role'],
    [{ email: 'a@example.com', role: 'owner' }, 'role'],
    [{ email: 'a@example.com', role: 'member', name: 'Ann' }, 'name'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post('/v1/members/invite', body), 400, 'invalid_request', param);
  });

  it('answers 409 when the email is already a member', async () => {
    expectError(await as(h.app, org.liveKey).post('/v1/members/invite', { email: org.user.email, role: 'member' }), 409, 'conflict');
  });

  it.each([
    ['members:write alone', 'guest', ['members:write']],
    ["a guest's rights", 'member', GUEST_RIGHTS],
    ["a member's rights", 'admin', MEMBER_RIGHTS],
  ] as const)('answers 403 naming role to a key holding %s and members:write that invites to the %s role, storing nothing', async (_, role, rights) => {
    const owner = await createOrg(h.db);
    const key = await keyWith(h.db, owner, [...new Set([...rights, 'members:write'])]);
    expectError(await as(h.app, key).post('/v1/members/invite', { email: freshEmail(), role }), 403, 'forbidden', 'role');
    expect(await h.db.invitation.count({ where: { organizationId: owner.organization.id } })).toBe(0);
  });

  it('lets a restricted key invite to a role whose rights it holds', async () => {
    const key = await keyWith(h.db, org, [...GUEST_RIGHTS, 'members:write']);
    expect((await as(h.app, key).post('/v1/members/invite', { email: freshEmail(), role: 'guest' })).body.role).toBe('guest');
  });

  it('is refused to a member-role key (members lack members:write)', async () => {
    const member = await addMember(h.db, org, { role: 'member' });
    expectError(await as(h.app, member.key).post('/v1/members/invite', { email: freshEmail(), role: 'member' }), 403, 'forbidden');
  });
});

describe('test keys', () => {
  it('cannot manage members, which are live data shared by both modes', async () => {
    expectError(await as(h.app, org.testKey).post('/v1/members/invite', { email: freshEmail(), role: 'member' }), 403, 'forbidden');
    expectError(await as(h.app, org.testKey).patch(`/v1/members/${memberId}`, { role: 'guest' }), 403, 'forbidden');
    expectError(await as(h.app, org.testKey).delete(`/v1/members/${memberId}`), 403, 'forbidden');
    expect((await as(h.app, org.testKey).get('/v1/members')).status).toBe(200);
  });
});

describe('POST /v1/invitations/accept', () => {
  it('needs no API key and answers 201 with the member and a first live key', async () => {
    const { email, token } = await invite(org, 'member');
    const res = await accept({ token, name: 'Ada' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      member: { id: expect.stringMatching(/^usr_/), email, name: 'Ada', role: 'member', joinedAt: expect.stringMatching(ISO) },
      apiKey: {
        id: expect.stringMatching(/^key_/),
        name: expect.any(String),
        prefix: res.body.apiKey.key.slice(0, 12),
        mode: 'live',
        permissions: expect.any(Array),
        userId: res.body.member.id,
        expiresAt: null,
        revokedAt: null,
        createdAt: expect.stringMatching(ISO),
        key: expect.stringMatching(/^tk_live_[A-Za-z0-9_-]{32,}$/),
      },
    });
    const listed = await as(h.app, org.liveKey).get('/v1/members?limit=100');
    expect(listed.body.data).toContainEqual(res.body.member);
  });

  it('keeps one pending invitation per address: inviting again revokes the earlier, accepting revokes any other', async () => {
    const email = freshEmail();
    const first = await invite(org, 'member', email);
    const second = await invite(org, 'member', email);
    expectError(await accept({ token: first.token, name: 'Old link' }), 400, 'invalid_request', 'token');
    const pending = (await as(h.app, org.liveKey).get('/v1/members/invitations?limit=100')).body.data.filter((i: { email: string }) => i.email === email);
    expect(pending.map((i: { id: string }) => i.id)).toEqual([second.id]);

    // A leftover pair from before the rule (the API no longer makes one): accepting one revokes the other.
    const other = await invite(org, 'member', freshEmail());
    await h.db.invitation.update({ where: { id: other.id }, data: { email } });
    expect((await accept({ token: second.token, name: 'Joined' })).status).toBe(201);
    expect((await h.db.invitation.findUniqueOrThrow({ where: { id: other.id } })).status).toBe('revoked');
    expectError(await accept({ token: other.token, name: 'Again' }), 400, 'invalid_request', 'token');
  });

  it('mails the invitee a link to the accept page (to MAIL_DIR with no SMTP_URL)', async () => {
    const dir = h.deps.config.mail.directory;
    const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
    const { email, token } = await invite(org);
    const written = await Promise.all(
      readdirSync(dir)
        .filter((file) => !before.has(file))
        .map((file) => simpleParser(readFileSync(path.join(dir, file)))),
    );
    const mail = written.find((parsed) => parsed.to && !Array.isArray(parsed.to) && parsed.to.text === email);
    expect(mail?.text).toContain(`${h.deps.config.publicBaseUrl}/dashboard/invitations/accept?token=${token}`);
    expect(mail?.html).toContain('Accept the invitation');
  });

  it('accepts a token once only', async () => {
    const { token } = await invite(org);
    expect((await accept({ token, name: 'Once' })).status).toBe(201);
    expectError(await accept({ token, name: 'Twice' }), 400, 'invalid_request', 'token');
  });

  it('refuses an expired invitation', async () => {
    const { id, token } = await invite(org);
    await h.db.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expectError(await accept({ token, name: 'Late' }), 400, 'invalid_request', 'token');
  });

  it.each([
    [{ name: 'Nobody' }, 'token'],
    [{ token: 'invtok_unknown', name: 'Nobody' }, 'token'],
    [{ token: 'invtok_unknown' }, 'name'],
    [{ token: 'invtok_unknown', name: '   ' }, 'name'],
    [{ token: 'invtok_unknown', name: 'N', email: 'x@example.com' }, 'email'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await accept(body), 400, 'invalid_request', param);
  });

  it("gives the new member's key its role's rights: a guest reads tasks and comments, but cannot create tasks", async () => {
    const projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Guest access' })).body.id;
    const taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Visible', projectId })).body.id;
    const guest = await join(org, 'guest');
    const api = as(h.app, guest.apiKey.key);
    expect((await api.get('/v1/tasks')).status).toBe(200);
    expect((await api.post(`/v1/tasks/${taskId}/comments`, { content: 'Looks good' })).status).toBe(201);
    expectError(await api.post('/v1/tasks', { title: 'Nope', projectId }), 403, 'forbidden');
  });
});

describe('PATCH /v1/members/{userId}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'patch', path: `/v1/members/${memberId}`, permission: 'members:write', body: { role: 'guest' } }), {
    namesResource: false,
  });

  it('changes the role and answers 200 with the member record', async () => {
    const owner = await createOrg(h.db);
    const { userId } = await addMember(h.db, owner, { role: 'guest' });
    const res = await as(h.app, owner.liveKey).patch(`/v1/members/${userId}`, { role: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: userId, email: `${userId}@example.com`, name: 'Member', role: 'admin', joinedAt: expect.stringMatching(ISO) });
    expect((await as(h.app, owner.liveKey).get('/v1/members?role=admin')).body.pagination.total).toBe(2);
  });

  it.each([
    [{ role: 'owner' }, 'role'],
    [{}, 'role'],
    [{ role: 'guest', name: 'x' }, 'name'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).patch(`/v1/members/${memberId}`, body), 400, 'invalid_request', param);
  });

  it('refuses (403 naming role) a key with only guest rights and members:write that promotes a guest it invited: it cannot mint an admin', async () => {
    const owner = await createOrg(h.db);
    const key = await keyWith(h.db, owner, [...GUEST_RIGHTS, 'members:write']);
    const { token } = await invite(owner, 'guest', freshEmail(), key);
    const guest = (await accept({ token, name: 'Puppet' })).body.member as { id: string };
    for (const role of ['member', 'admin']) {
      expectError(await as(h.app, key).patch(`/v1/members/${guest.id}`, { role }), 403, 'forbidden', 'role');
    }
    expect((await as(h.app, owner.liveKey).get('/v1/members?role=guest')).body.data.map((m: { id: string }) => m.id)).toEqual([guest.id]);
  });

  it('lets a restricted key change a role to one whose rights it holds', async () => {
    const owner = await createOrg(h.db);
    const { userId } = await addMember(h.db, owner, { role: 'member' });
    const key = await keyWith(h.db, owner, [...GUEST_RIGHTS, 'members:write']);
    expect((await as(h.app, key).patch(`/v1/members/${userId}`, { role: 'guest' })).body.role).toBe('guest');
  });

  it('answers 404 naming userId for an unknown user and for a member of another organization', async () => {
    expectError(await as(h.app, org.liveKey).patch('/v1/members/usr_nobody', { role: 'guest' }), 404, 'not_found', 'userId');
    expectError(await as(h.app, otherOrg.liveKey).patch(`/v1/members/${memberId}`, { role: 'guest' }), 404, 'not_found', 'userId');
  });

  it('refuses to demote the last admin with 409', async () => {
    const owner = await createOrg(h.db);
    expectError(await as(h.app, owner.liveKey).patch(`/v1/members/${owner.user.id}`, { role: 'member' }), 409, 'conflict');
    expect((await as(h.app, owner.liveKey).get('/v1/members?role=admin')).body.pagination.total).toBe(1);
  });

  it('demotes an admin while another admin remains', async () => {
    const owner = await createOrg(h.db);
    await addMember(h.db, owner, { role: 'admin' });
    expect((await as(h.app, owner.liveKey).patch(`/v1/members/${owner.user.id}`, { role: 'member' })).body.role).toBe('member');
  });
});

describe('DELETE /v1/members/{userId}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/members/${memberId}`, permission: 'members:write' }), { namesResource: false });

  it('removes the member with 204; their key stops working at once', async () => {
    const owner = await createOrg(h.db);
    const member = await addMember(h.db, owner, { role: 'member' });
    expect((await as(h.app, member.key).get('/v1/tasks')).status).toBe(200);
    const res = await as(h.app, owner.liveKey).delete(`/v1/members/${member.userId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await as(h.app, member.key).get('/v1/tasks'), 401, 'unauthenticated');
    expect((await as(h.app, owner.liveKey).get('/v1/members')).body.data.map((m: { id: string }) => m.id)).not.toContain(member.userId);
  });

  it('refuses to remove the last admin with 409', async () => {
    const owner = await createOrg(h.db);
    expectError(await as(h.app, owner.liveKey).delete(`/v1/members/${owner.user.id}`), 409, 'conflict');
    expect((await as(h.app, owner.liveKey).get('/v1/members')).status).toBe(200);
  });

  it('answers 404 naming userId for an unknown user and for a member of another organization', async () => {
    expectError(await as(h.app, org.liveKey).delete('/v1/members/usr_nobody'), 404, 'not_found', 'userId');
    expectError(await as(h.app, otherOrg.liveKey).delete(`/v1/members/${memberId}`), 404, 'not_found', 'userId');
    expect((await as(h.app, org.liveKey).get('/v1/members?limit=100')).body.data.map((m: { id: string }) => m.id)).toContain(memberId);
  });
});

describe('GET /v1/members/invitations', () => {
  let owner: TestOrg;

  beforeAll(async () => {
    owner = await createOrg(h.db);
  });

  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/members/invitations', permission: 'members:read' }), { namesResource: false });

  it('lists the pending invitations, newest first, in the pagination envelope, without their tokens', async () => {
    const first = await invite(owner, 'guest');
    const second = await invite(owner, 'admin');
    const res = await as(h.app, owner.liveKey).get('/v1/members/invitations');
    expect(res.status).toBe(200);
    const record = ({ token: _token, ...rest }: { token: string }) => ({ ...rest, invitedBy: owner.user.id });
    expect(res.body).toEqual({ data: [record(second), record(first)], pagination: { total: 2, limit: 50, offset: 0, hasMore: false, nextCursor: null } });
    expect(JSON.stringify(res.body)).not.toContain('invtok_');

    const page = await as(h.app, owner.liveKey).get('/v1/members/invitations?limit=1&offset=1');
    expect(page.body).toEqual({ data: [record(first)], pagination: { total: 2, limit: 1, offset: 1, hasMore: false, nextCursor: null } });
  });

  it('leaves out accepted, revoked and expired invitations, and those of other organizations', async () => {
    const other = await createOrg(h.db);
    const pending = await invite(other);
    await accept({ token: (await invite(other)).token, name: 'Joined' }).expect(201);
    await as(h.app, other.liveKey)
      .delete(`/v1/members/invitations/${(await invite(other)).id}`)
      .expect(204);
    const expired = await invite(other);
    await h.db.invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    await invite(owner);

    const res = await as(h.app, other.liveKey).get('/v1/members/invitations');
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([pending.id]);
    expect(res.body.pagination.total).toBe(1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['status=accepted', 'status'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, owner.liveKey).get(`/v1/members/invitations?${query}`), 400, 'invalid_request', param);
  });
});

describe('DELETE /v1/members/invitations/{invitationId}', () => {
  let invitationId: string;

  beforeAll(async () => {
    invitationId = (await invite(org)).id;
  });

  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/members/invitations/${invitationId}`, permission: 'members:write' }), {
    namesResource: false,
  });

  it('revokes with 204: the token then fails like an unknown one, and the invitation is no longer listed', async () => {
    const { id, token } = await invite(org);
    const res = await as(h.app, org.liveKey).delete(`/v1/members/invitations/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await accept({ token, name: 'Too late' }), 400, 'invalid_request', 'token');
    expect((await as(h.app, org.liveKey).get('/v1/members/invitations?limit=100')).body.data.map((i: { id: string }) => i.id)).not.toContain(id);
  });

  it("answers 404 naming invitationId for an unknown, another organization's, a revoked or an accepted invitation", async () => {
    const { id: revoked } = await invite(org);
    await as(h.app, org.liveKey).delete(`/v1/members/invitations/${revoked}`).expect(204);
    const { id: accepted, token } = await invite(org);
    await accept({ token, name: 'Joined' }).expect(201);
    for (const id of ['inv_nobody', revoked, accepted]) {
      expectError(await as(h.app, org.liveKey).delete(`/v1/members/invitations/${id}`), 404, 'not_found', 'invitationId');
    }
    expectError(await as(h.app, otherOrg.liveKey).delete(`/v1/members/invitations/${invitationId}`), 404, 'not_found', 'invitationId');
    expect((await as(h.app, org.liveKey).get('/v1/members/invitations?limit=100')).body.data.map((i: { id: string }) => i.id)).toContain(invitationId);
  });

  it('is refused to a test key', async () => {
    expectError(await as(h.app, org.testKey).delete(`/v1/members/invitations/${invitationId}`), 403, 'forbidden');
  });
});

describe('removing a member', () => {
  it('revokes the pending invitations they sent, and only those', async () => {
    const owner = await createOrg(h.db);
    const inviter = await addMember(h.db, owner, { role: 'admin' });
    const sent = await invite(owner, 'admin', freshEmail(), inviter.key);
    const kept = await invite(owner);
    await as(h.app, owner.liveKey).delete(`/v1/members/${inviter.userId}`).expect(204);

    expectError(await accept({ token: sent.token, name: 'Orphan' }), 400, 'invalid_request', 'token');
    expect((await as(h.app, owner.liveKey).get('/v1/members/invitations')).body.data.map((i: { id: string }) => i.id)).toEqual([kept.id]);
    expect((await accept({ token: kept.token, name: 'Welcome' })).status).toBe(201);
  });

  it('refuses an invitation its inviter sends while the removal commits (401), and none survives', async () => {
    const owner = await createOrg(h.db);
    const inviter = await addMember(h.db, owner, { role: 'admin' });
    // The removal under way: the membership lock held and the membership deleted, not yet committed.
    const removal = new Client({ connectionString: process.env.DATABASE_URL });
    await removal.connect();
    try {
      await removal.query('BEGIN');
      await removal.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`memberships:${owner.organization.id}`]);
      await removal.query('DELETE FROM "Membership" WHERE "organizationId" = $1 AND "userId" = $2', [owner.organization.id, inviter.userId]);
      await removal.query('UPDATE "ApiKey" SET "revokedAt" = now() WHERE "userId" = $1', [inviter.userId]);
      const sent = as(h.app, inviter.key)
        .post('/v1/members/invite', { email: freshEmail(), role: 'member' })
        .then((res) => res);
      // The invite, authenticated before the removal commits, waits for the membership lock.
      await waitFor(async () => {
        const { rows } = await removal.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
        );
        return rows[0];
      });
      await removal.query('COMMIT');
      expectError(await sent, 401, 'unauthenticated');
    } finally {
      await removal.end();
    }
    expect(await h.db.invitation.count({ where: { invitedById: inviter.userId } })).toBe(0);
  });
});

describe('member events, end to end', () => {
  const secret = 'secret_member_events_secret';
  let eh: Harness;
  let worker: ReturnType<typeof startTestWorker>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    eh = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    worker = startTestWorker({ prefix: eh.deps.config.redisPrefix });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await worker.close();
    await eh.close();
  });

  /** The first delivery of a type; deliveries are at least once and unordered, so look it up by event. */
  const delivered = (event: string) => waitFor(async () => receiver.received.find((r) => r.json.event === event));

  async function expectSigned(delivery: Received) {
    expect(await verify(secret, delivery.body, delivery.headers['x-service-signature'] as string)).toBe(true);
  }

  it('delivers member.added, member.role_changed and member.removed, signed, as invite, accept, role change and removal happen', async () => {
    const owner = await createOrg(eh.db);
    const api = as(eh.app, owner.liveKey);
    const subscribed = await api.post('/v1/webhooks', {
      url: receiver.url,
      events: ['member.added', 'member.role_changed', 'member.removed'],
      secret,
    });
    expect(subscribed.status).toBe(201);
    const webhookId = subscribed.body.id as string;
    const organization = { id: owner.organization.id, name: owner.organization.name };

    const { token } = (await api.post('/v1/members/invite', { email: freshEmail(), role: 'guest' })).body;
    const accepted = await request(eh.app).post('/v1/invitations/accept').send({ token, name: 'Evented' });
    expect(accepted.status).toBe(201);
    const added = await delivered('member.added');
    expect(added.json).toMatchObject({ webhookId, organization });
    expect(added.json.data).toEqual(accepted.body.member);
    await expectSigned(added);

    const promoted = await api.patch(`/v1/members/${accepted.body.member.id}`, { role: 'member' });
    expect(promoted.status).toBe(200);
    const changed = await delivered('member.role_changed');
    expect(changed.json).toMatchObject({ webhookId, organization });
    expect(changed.json.data).toEqual({ ...promoted.body, previousAttributes: { role: 'guest' } });
    await expectSigned(changed);

    await api.delete(`/v1/members/${accepted.body.member.id}`).expect(204);
    const removed = await delivered('member.removed');
    expect(removed.json).toMatchObject({ webhookId, organization });
    expect(removed.json.data).toEqual(promoted.body);
    await expectSigned(removed);

    const deliveryIds = [added, changed, removed].map((d) => d.json.deliveryId);
    expect(new Set(deliveryIds).size).toBe(3);
  });
});
