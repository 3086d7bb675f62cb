import { createDatabase, tenantHandles, type Database, type Scope } from '../src/index';
import { createOrg } from '@test-support/api-harness';

let database: Database;

beforeAll(() => {
  database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => database.close());

describe('tenantHandles', () => {
  it("makes each tenant's handle once, keeps it, and binds it to that tenant's rows and publisher", async () => {
    const [org, other] = [await createOrg(database.db), await createOrg(database.db)];
    const published: [string, string[]][] = [];
    const made: Scope[] = [];
    const handleOf = tenantHandles(database, (scope) => {
      made.push(scope);
      return { onCommitted: (eventIds) => published.push([scope.organizationId, eventIds]) };
    });
    const live = { organizationId: org.organization.id, mode: 'live' } as const;

    expect(handleOf(live)).toBe(handleOf({ ...live }));
    expect(handleOf({ ...live, mode: 'test' })).not.toBe(handleOf(live));
    expect(made).toEqual([live, { ...live, mode: 'test' }]);

    const project = await handleOf(live).commitWithEvents(async (tx) => {
      const created = await tx.projects.create({ name: 'Kept handle', description: null, icon: null, color: null });
      return { result: created, events: [{ type: 'project.created', data: { id: created.id }, projectId: created.id }] };
    });
    expect(await handleOf({ organizationId: other.organization.id, mode: 'live' }).projects.find(project.id)).toBeNull();
    expect(published.map(([organizationId]) => organizationId)).toEqual([org.organization.id]);
  });
});
