import { randomBytes } from 'node:crypto';
import { createDatabase, SecretBox, unscopedData, type Database } from '../src/index';

/**
 * Counts the WebAssembly modules compiled from now on: Prisma compiles its query compiler (some
 * 30 MB resident once compiled) at its client's first query, and at no other time.
 */
function countCompilations(): { count(): number; stop(): void } {
  const original = WebAssembly.Module;
  let count = 0;
  WebAssembly.Module = class extends original {
    constructor(bytes: BufferSource) {
      super(bytes);
      count += 1;
    }
  };
  return { count: () => count, stop: () => void (WebAssembly.Module = original) };
}

describe("the cross-tenant reads a service repeats, the worker's sweep and the sealing of secrets at start", () => {
  let database: Database;

  beforeAll(() => {
    database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
  });
  afterAll(() => database.close());

  it("run on the pool without loading Prisma's query compiler, which the client's first query loads", async () => {
    const compilations = countCompilations();
    try {
      const data = unscopedData(database);
      expect(await data.resolveKey(randomBytes(32).toString('hex'))).toBeUndefined();
      await expect(data.ping()).resolves.toBeUndefined();
      expect(await data.countUndispatchedEvents()).toBe(0);
      expect(await data.resealWebhookSecrets(new SecretBox([randomBytes(32)]))).toEqual({ sealed: 0, resealed: 0, unreadable: 0, remaining: 0 });
      expect(await data.overdueEvents(new Date(), 10)).toEqual([]);
      expect(await data.pruneDispatchedEvents(new Date(), 1)).toBe(0);
      expect(compilations.count()).toBe(0);

      expect(await database.db.organization.count()).toBe(0);
      expect(compilations.count()).toBe(1);
    } finally {
      compilations.stop();
    }
  });
});
