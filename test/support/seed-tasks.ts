import { randomBytes } from 'node:crypto';
import type { Db, Mode } from '@worktrack/db';

/** Titles and descriptions with accents, mixed case and repeats: ties for every order, words for `q`. */
export const TITLE_WORDS = ['Réunion', 'réunion', 'Launch', 'launch', 'Écrire', 'ecrire', 'Zèbre', 'zebra', 'Alpha', 'naïve', 'Équipe', 'Ñandú'];
export const DESCRIPTIONS = ['Café avec l’équipe', 'the quick brown fox', 'Plan de déploiement', 'Naïve approach, révisée'];

export interface TaskSeed {
  organizationId: string;
  projectId: string;
  creatorId: string;
  /** Member ids (at least one) the tasks are spread over; a fifth of the tasks are unassigned. */
  assignees: string[];
  count: number;
  mode?: Mode;
}

/**
 * Inserts `count` tasks in one statement (generate_series), then refreshes the planner's statistics
 * (autovacuum is off on these machines). Values repeat on purpose: createdAt every 1,000 tasks,
 * due dates every 200, a quarter without one, so every order has ties that the id must break.
 */
export async function seedTasks(db: Db, seed: TaskSeed): Promise<void> {
  const batch = randomBytes(4).toString('hex').toUpperCase();
  await db.$executeRaw`
    INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority, "assigneeId", "creatorId", "dueDate", "customFields", "createdAt", "updatedAt")
    SELECT 'tsk_S' || ${batch} || lpad(i::text, 7, '0'), ${seed.organizationId}, ${seed.mode ?? 'live'}::"Mode", ${seed.projectId},
      (${TITLE_WORDS}::text[])[1 + i % ${TITLE_WORDS.length}] || ' ' || (${TITLE_WORDS}::text[])[1 + (i / 7) % ${TITLE_WORDS.length}] || ' ' || (i % 89),
      CASE WHEN i % 5 = 0 THEN NULL ELSE (${DESCRIPTIONS}::text[])[1 + (i / 3) % ${DESCRIPTIONS.length}] END,
      (ARRAY['todo', 'in_progress', 'done'])[1 + i % 3]::"TaskStatus",
      (ARRAY['low', 'medium', 'high'])[1 + (i / 3) % 3]::"Priority",
      CASE WHEN i % 5 = 1 THEN NULL ELSE (${seed.assignees}::text[])[1 + i % ${seed.assignees.length}] END,
      ${seed.creatorId},
      CASE WHEN i % 4 = 0 THEN NULL ELSE timestamptz '2027-01-01' + ((i * 31) % 200) * interval '1 hour' END,
      '{}'::jsonb,
      timestamptz '2026-01-01' + (i % 1000) * interval '1 minute',
      timestamptz '2026-06-01' + ((i * 7919) % ${seed.count}) * interval '1 second'
    FROM generate_series(1, ${seed.count}) AS i`;
  await db.$executeRawUnsafe('VACUUM ANALYZE "Task"');
}
