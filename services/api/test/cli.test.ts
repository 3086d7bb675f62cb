import { createHash } from 'node:crypto';
import { exitCode, runBundled } from '@test-support/processes';
import { as, createHarness, type Harness } from '@test-support/api-harness';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

async function cli(...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = runBundled('cli', args, {});
  const code = await exitCode(child);
  return { code, output: child.output() };
}

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe('pnpm cli', () => {
  it('bootstraps an organization, refuses a second of the same name (in any case) and an invalid email', async () => {
    const name = `Acme ${unique()}`;
    const first = await cli('bootstrap', '--org', name, '--email', `ops-${unique()}@example.com`, '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.output).organization.name).toBe(name);

    const duplicate = await cli('bootstrap', '--org', name.toUpperCase(), '--email', `ops-${unique()}@example.com`);
    expect(duplicate.code).toBe(2);
    expect(duplicate.output).toContain(`An organization named "${name}" already exists`);
    expect(duplicate.output).not.toMatch(/\n\s+at /);

    const invalid = await cli('bootstrap', '--org', `Other ${unique()}`, '--email', 'not-an-email');
    expect(invalid.code).toBe(2);
    expect(invalid.output).toContain('--email not-an-email is not an email address');
  }, 30_000);

  it('lists organizations and creates a key for a member that works with the permissions asked for', async () => {
    const email = `ops-${unique()}@example.com`;
    const { organization, user } = JSON.parse((await cli('bootstrap', '--org', `Keys ${unique()}`, '--email', email, '--json')).output);
    const listed = await cli('orgs', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.output)).toContainEqual(expect.objectContaining({ id: organization.id, plan: 'free', members: 1 }));

    const created = await cli('keys', 'create', '--org', organization.id, '--email', email, '--permissions', 'tasks:read', '--json');
    expect(created.code).toBe(0);
    const { key, permissions } = JSON.parse(created.output);
    expect(permissions).toEqual(['tasks:read']);
    expect((await as(h.app, key).get('/v1/tasks')).status).toBe(200);
    expect((await as(h.app, key).get('/v1/projects')).status).toBe(403);

    // Through the pipeline: the API's rules for a key's name hold for the operator too.
    const named = await cli('keys', 'create', '--org', organization.id, '--email', email, '--name', 'bell\u0007');
    expect(named.code).toBe(2);
    expect(named.output).toContain('--name: ');
    expect(named.output).toContain('control characters');

    // A sign-in link, issued as POST /v1/dashboard-links issues it, for the member.
    const printed = await cli('dashboard-link', '--email', email, '--json');
    expect(printed.code).toBe(0);
    const link = JSON.parse(printed.output);
    const token = new URL(link.url).searchParams.get('token')!;
    const stored = await h.db.dashboardLink.findUnique({ where: { tokenHash: createHash('sha256').update(token).digest('hex') } });
    expect(stored).toMatchObject({ organizationId: organization.id, userId: user.id, usedAt: null });
    expect(link.expiresAt).toBe(stored!.expiresAt.toISOString());

    const stranger = await cli('keys', 'create', '--org', organization.id, '--email', 'nobody@example.com');
    expect(stranger.code).toBe(2);
    expect(stranger.output).toContain('nobody@example.com is not a member of organization');
  }, 60_000);

  it('names DATABASE_URL in one line when the database cannot be reached', async () => {
    const child = runBundled('cli', ['orgs', 'list'], { DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:1/worktrack' });
    expect(await exitCode(child)).toBe(1);
    expect(child.output().trim()).toBe('Cannot reach the database "worktrack" at 127.0.0.1:1. Check DATABASE_URL and that PostgreSQL is running.');
  });
});
