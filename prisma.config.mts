// Prisma 7 reads the datasource URL and the migrations folder from here (schema.prisma no longer
// holds the URL). scripts/prisma.mjs imports this file too, so there is one place for both.
import type { PrismaConfig } from 'prisma';

export default {
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/worktrack',
  },
} satisfies PrismaConfig;
