// Prisma 7 reads the datasource URL and the migrations folder from here (schema.prisma no longer
// holds the URL). scripts/prisma.mjs imports this file too, so there is one place for both.
// Migrations take session-level advisory locks, which a pooler in transaction mode cannot carry: when
// DATABASE_URL is PgBouncer, DATABASE_DIRECT_URL names Postgres itself (docs/operations.md#pgbouncer).
import type { PrismaConfig } from 'prisma';

export default {
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL || 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack',
  },
} satisfies PrismaConfig;
