import fc from 'fast-check';
import { Pool } from 'pg';
import { compileFilter } from '../src/modules/webhooks/subscription-filter';

/*
 * The filter language (docs/webhooks.md#filters) against a reference evaluator written here from the
 * guide's rules, on random event data and random filters: each filter is compiled by the service and
 * evaluated by Postgres, as "Webhook_wants" evaluates it for the fan-out.
 */

let pool: Pool;
beforeAll(() => {
  pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
});
afterAll(() => pool.end());

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Scalar = null | boolean | number | string;

// ---- The reference evaluator: the guide's rules, nothing of the implementation. ----

const isObject = (value: Json): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);
const SERVICE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The values at a dotted path: a step into an array steps into each of its objects (one level). */
function valuesAt(data: Json, path: string): Json[] {
  let current: Json[] = [data];
  for (const name of path.split('.')) {
    current = current.flatMap((value) => {
      const objects = Array.isArray(value) ? value.filter(isObject) : isObject(value) ? [value] : [];
      return objects.filter((object) => Object.hasOwn(object, name)).map((object) => object[name]!);
    });
  }
  return current;
}

/** What a clause compares: each value found, or each element of one that is an array (one level). */
const candidates = (data: Json, path: string): Json[] => valuesAt(data, path).flatMap((value) => (Array.isArray(value) ? value : [value]));

const same = (a: Json, b: Scalar) => (b === null ? a === null : typeof a === typeof b && a === b);

/** A filter's timestamp as the instant it names, to the millisecond (further digits are ignored). */
const timestampOperand = (text: string): string => new Date(text.toUpperCase().replace(/(\.\d{3})\d+/, '$1')).toISOString();

function bound(value: Json, operand: number | string, atLeast: boolean): boolean {
  if (typeof operand === 'number') return typeof value === 'number' && (atLeast ? value >= operand : value <= operand);
  const instant = timestampOperand(operand);
  return typeof value === 'string' && SERVICE_TIMESTAMP.test(value) && (atLeast ? value >= instant : value <= instant);
}

function referenceMatch(data: Json, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([path, clause]) => {
    const found = candidates(data, path);
    const equalsSome = (value: Scalar) => found.some((candidate) => same(candidate, value));
    if (!isObject(clause as Json)) return equalsSome(clause as Scalar);
    return Object.entries(clause as Record<string, unknown>).every(([operator, operand]) => {
      switch (operator) {
        case '$in':
          return (operand as Scalar[]).some(equalsSome);
        case '$ne':
          return !equalsSome(operand as Scalar);
        case '$exists':
          return valuesAt(data, path).length > 0 === operand;
        case '$gte':
        case '$lte':
          return found.some((candidate) => bound(candidate, operand as number | string, operator === '$gte'));
        default:
          throw new Error(`the generator made ${operator}`);
      }
    });
  });
}

// ---- Generators: small pools, so that clauses match often and miss often. ----

const NAMES = ['priority', 'dueDate', 'tags', 'previousAttributes', 'status', 'n', 'a b', 'é"\\'];
const TIMESTAMPS = ['2026-01-01T00:00:00.000Z', '2026-06-15T12:30:00.000Z', '2026-06-15T12:30:00.001Z', '2027-01-01T00:00:00.000Z'];
const strings = fc.constantFrom('high', 'low', '', 'High', 'é', 'a"b\\c', '😀', '1', 'true', 'null', '2026-06-15T12:30:00Z', ...TIMESTAMPS);
const numbers = fc.oneof(
  fc.constantFrom(-1, 0, 1, 2.5, 1e21, -0.001, 1e-7),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const scalars: fc.Arbitrary<Scalar> = fc.oneof(strings, numbers, fc.boolean(), fc.constant(null));

const { data } = fc.letrec<{ data: Json; value: Json }>((tie) => ({
  data: fc.dictionary(fc.constantFrom(...NAMES), tie('value'), { maxKeys: 5 }),
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalars, fc.array(tie('value'), { maxLength: 4 }), tie('data')) as fc.Arbitrary<Json>,
}));

const paths = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((names) => names.join('.'));
const timeOperands = fc.constantFrom(
  ...TIMESTAMPS,
  '2026-06-15T14:30:00+02:00',
  '2026-06-15T12:30:00Z',
  '2026-06-15t12:30:00.0009z',
  '2025-12-31T23:00:00-01:00',
);
const boundOperands = fc.oneof(numbers, timeOperands);
const operatorClause = fc.record(
  {
    $in: fc.array(scalars, { minLength: 1, maxLength: 4 }),
    $ne: scalars,
    $exists: fc.boolean(),
    $gte: boundOperands,
    $lte: boundOperands,
  },
  { requiredKeys: [] },
);
const clauses = fc.oneof(
  scalars,
  operatorClause.filter((clause) => Object.keys(clause).length > 0),
);
const filters = fc.dictionary(paths, clauses, { maxKeys: 4 });

const storable = (value: unknown) => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(value));

async function postgresMatch(event: Json, jsonpath: string | null): Promise<boolean> {
  if (jsonpath === null) return true;
  const { rows } = await pool.query<{ match: boolean }>('SELECT ($1::jsonb @@ $2::jsonpath) IS TRUE AS match', [JSON.stringify(event), jsonpath]);
  return rows[0]!.match;
}

describe('the filter language', () => {
  it('matches in Postgres exactly when the reference evaluator says it does', async () => {
    await fc.assert(
      fc.asyncProperty(data, filters, async (event, filter) => {
        const compiled = compileFilter(filter);
        if (!compiled.ok) throw new Error(compiled.message);
        expect(await postgresMatch(event, compiled.jsonpath)).toBe(referenceMatch(event, filter));
      }),
      { numRuns: 1500 },
    );
  });

  it('matches on data shaped like the events, where most clauses find their field', async () => {
    const task = fc.record({
      priority: fc.constantFrom('low', 'medium', 'high'),
      dueDate: fc.oneof(fc.constant(null), fc.constantFrom(...TIMESTAMPS)),
      mentions: fc.array(fc.constantFrom('usr_1', 'usr_2'), { maxLength: 2 }),
      previousAttributes: fc.record({ status: fc.constantFrom('todo', 'done') }, { requiredKeys: [] }),
    });
    const taskFilters = fc.dictionary(
      fc.constantFrom('priority', 'dueDate', 'mentions', 'previousAttributes.status'),
      fc.oneof(
        fc.constantFrom('high', 'usr_1', 'todo', null),
        operatorClause.filter((clause) => Object.keys(clause).length > 0),
      ),
      { maxKeys: 3 },
    );
    await fc.assert(
      fc.asyncProperty(task, taskFilters, async (event, filter) => {
        const compiled = compileFilter(filter);
        if (!compiled.ok) throw new Error(compiled.message);
        expect(await postgresMatch(event as Json, compiled.jsonpath)).toBe(referenceMatch(event as Json, filter));
      }),
      { numRuns: 1000 },
    );
  });

  it('either compiles any JSON to a jsonpath Postgres accepts, or says what is wrong with it', async () => {
    await fc.assert(
      // The request refuses NUL and unpaired surrogates before the filter is read (validation.ts).
      fc.asyncProperty(fc.jsonValue().filter(storable), async (value) => {
        const compiled = compileFilter(value);
        if (!compiled.ok) {
          expect(compiled.message).toMatch(/^filter/);
          return;
        }
        await postgresMatch({}, compiled.jsonpath);
      }),
      { numRuns: 500 },
    );
  });
});
