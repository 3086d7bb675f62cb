// What Postgres spends per delivery under three ways of storing deliveries, on tables cut down to
// what each step writes (the subscription's foreign key, the indexes, a body of 700 bytes, request
// headers of 400), each step a transaction of its own as in the worker, in batches of BENCH_BATCH:
//   today           the pending delivery is its row: inserted at the fan-out (five indexes, half of
//                   each page left free), leased (a HOT update), then recorded (an update that
//                   leaves the pending index, so not HOT) beside its attempt's row;
//   queue table     the pending state (due time, lease) in a narrow table of its own, deleted by the
//                   record, so that the delivery's own update at the record can be HOT;
//   outcomes only   the delivery written once, with its outcome, beside its attempt, in one
//                   transaction: what is left if pending deliveries were kept outside Postgres.
// After a round of each not measured, rounds alternate the designs, each after VACUUM ANALYZE;
// printed: the backend's CPU per delivery (from /proc). BENCH_ROUNDS (5), BENCH_DELIVERIES (5,000 a
// round), BENCH_BATCH (25).
//   node --import tsx bench/delivery-designs.ts
import { Client } from 'pg';
import { createDatabase, dropDatabase } from './bench-database';
import { cpuMicros } from './proc-cpu';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 25);

const SCHEMA = `
  CREATE TABLE sub (id text PRIMARY KEY);
  INSERT INTO sub VALUES ('wh_1'), ('wh_2');

  CREATE TABLE today (id text PRIMARY KEY, webhook text NOT NULL REFERENCES sub ON DELETE CASCADE, event text NOT NULL, body text NOT NULL,
    status text NOT NULL, attempts int NOT NULL, next timestamptz, last timestamptz, locked timestamptz,
    created timestamptz NOT NULL DEFAULT now(), updated timestamptz NOT NULL DEFAULT now()) WITH (fillfactor = 50);
  CREATE UNIQUE INDEX ON today (event, webhook);
  CREATE INDEX ON today (webhook, created, id);
  CREATE INDEX ON today (webhook, next, id) WHERE status = 'pending';
  CREATE INDEX ON today (webhook, last);
  CREATE TABLE today_attempt (id text PRIMARY KEY, delivery text NOT NULL REFERENCES today ON DELETE CASCADE, n int NOT NULL,
    at timestamptz NOT NULL, status int, headers jsonb, UNIQUE (delivery, n));

  CREATE TABLE queued (id text PRIMARY KEY, webhook text NOT NULL REFERENCES sub ON DELETE CASCADE, event text NOT NULL, body text NOT NULL,
    status text NOT NULL, attempts int NOT NULL, last timestamptz,
    created timestamptz NOT NULL DEFAULT now(), updated timestamptz NOT NULL DEFAULT now()) WITH (fillfactor = 70);
  CREATE UNIQUE INDEX ON queued (event, webhook);
  CREATE INDEX ON queued (webhook, created, id);
  CREATE TABLE queue (delivery text PRIMARY KEY, webhook text NOT NULL, next timestamptz NOT NULL, locked timestamptz) WITH (fillfactor = 50);
  CREATE INDEX ON queue (webhook, next, delivery);
  CREATE TABLE queued_attempt (id text PRIMARY KEY, delivery text NOT NULL REFERENCES queued ON DELETE CASCADE, n int NOT NULL,
    at timestamptz NOT NULL, status int, headers jsonb, UNIQUE (delivery, n));

  CREATE TABLE outcome (id text PRIMARY KEY, webhook text NOT NULL REFERENCES sub ON DELETE CASCADE, event text NOT NULL, body text NOT NULL,
    status text NOT NULL, attempts int NOT NULL, last timestamptz,
    created timestamptz NOT NULL DEFAULT now(), updated timestamptz NOT NULL DEFAULT now());
  CREATE UNIQUE INDEX ON outcome (event, webhook);
  CREATE INDEX ON outcome (webhook, created, id);
  CREATE INDEX ON outcome (webhook, last);
  CREATE TABLE outcome_attempt (id text PRIMARY KEY, delivery text NOT NULL REFERENCES outcome ON DELETE CASCADE, n int NOT NULL,
    at timestamptz NOT NULL, status int, headers jsonb, UNIQUE (delivery, n));`;

// $1: the batch's delivery ids; each delivery's subscription alternates, its event is its own.
const ROWS = `SELECT i, 'wh_' || (1 + k % 2), 'evt_' || i, repeat('x', 700) FROM unnest($1::text[]) WITH ORDINALITY AS t(i, k)`;
const ATTEMPTS = (table: string) =>
  `INSERT INTO ${table} SELECT 'att_' || i, i, 1, now(), 200, jsonb_build_object('h', repeat('y', 400)) FROM unnest($1::text[]) i`;

/** Each design's steps, in order, each run as a transaction of its own on a batch's ids. */
const DESIGNS: Record<string, string[]> = {
  today: [
    `INSERT INTO today (id, webhook, event, body, status, attempts, next) SELECT *, 'pending', 0, now() FROM (${ROWS}) r`,
    `UPDATE today SET locked = now() + interval '1 minute', updated = now() WHERE id = ANY ($1) AND status = 'pending'`,
    `WITH attempt AS (${ATTEMPTS('today_attempt')})
     UPDATE today SET status = 'succeeded', attempts = 1, last = now(), next = NULL, locked = NULL, updated = now() WHERE id = ANY ($1)`,
  ],
  'queue table': [
    `WITH delivery AS (INSERT INTO queued (id, webhook, event, body, status, attempts) SELECT *, 'pending', 0 FROM (${ROWS}) r RETURNING id, webhook)
     INSERT INTO queue SELECT id, webhook, now() FROM delivery`,
    `UPDATE queue SET locked = now() + interval '1 minute' WHERE delivery = ANY ($1)`,
    `WITH attempt AS (${ATTEMPTS('queued_attempt')}), settled AS (DELETE FROM queue WHERE delivery = ANY ($1))
     UPDATE queued SET status = 'succeeded', attempts = 1, last = now(), updated = now() WHERE id = ANY ($1)`,
  ],
  'outcomes only': [
    `WITH attempt AS (${ATTEMPTS('outcome_attempt')})
     INSERT INTO outcome (id, webhook, event, body, status, attempts, last) SELECT *, 'succeeded', 1, now() FROM (${ROWS}) r`,
  ],
};

let sequence = 0;
const batchIds = () => Array.from({ length: BATCH }, () => `dlv_${(sequence++).toString(36).padStart(10, '0')}`);

async function main(): Promise<void> {
  const url = createDatabase('designs');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(SCHEMA);
    const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
    const perDelivery: Record<string, number[]> = Object.fromEntries(Object.keys(DESIGNS).map((name) => [name, []]));
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, steps] of Object.entries(DESIGNS)) {
        await client.query('VACUUM ANALYZE');
        const before = cpuMicros(pid);
        for (let done = 0; done < DELIVERIES; done += BATCH) {
          const ids = batchIds();
          for (const [i, text] of steps.entries()) await client.query({ name: `${name}-${i}`, text, values: [ids] });
        }
        if (round > 0) perDelivery[name]!.push((cpuMicros(pid) - before) / DELIVERIES);
      }
    }
    const range = (values: number[]) => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`;
    const today = perDelivery.today!;
    console.log(`Backend CPU per delivery, ${ROUNDS} rounds of ${DELIVERIES} deliveries in batches of ${BATCH}:`);
    for (const [name, values] of Object.entries(perDelivery))
      console.log(`  ${name}: ${range(values)} µs (${range(values.map((v, i) => (100 * v) / today[i]!))}% of today's in the same round)`);
  } finally {
    await client.end();
    await dropDatabase(url);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
