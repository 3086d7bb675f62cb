import { Prisma } from '@worktrack/db';

/**
 * `q` (docs/decisions.md#task-filters): every word must begin a word of the title or the description, whatever its
 * case and accents. The `worktrack_search` configuration strips accents (unaccent) and lower-cases;
 * this document is the expression of the GIN index "Task_search_idx" (keep them identical).
 */
const document = Prisma.sql`to_tsvector('worktrack_search'::regconfig, title || ' ' || COALESCE(description, ''))`;

/**
 * Each word quoted as one tsquery operand with a prefix match: to_tsquery then reads it through the
 * same configuration (so "Réunion," matches "reunion") and nothing in it acts as an operator.
 */
const prefixQuery = (q: string) =>
  q
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}':*`)
    .join(' & ');

export const matchesSearch = (q: string) => Prisma.sql`${document} @@ to_tsquery('worktrack_search', ${prefixQuery(q)})`;
