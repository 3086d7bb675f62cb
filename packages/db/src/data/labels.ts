import { Prisma, type Label } from '../generated/prisma/client';
import { newId } from '../ids';
import { lockScopedRow, type TenantConn } from './connection';
import { sqlListing, type SqlSortField } from './listing';

export type LabelSortField = 'createdAt';

/** An organization's labels are few: they are sorted, not walked along an index. */
const LABEL_SORT_KEYS: Record<LabelSortField, SqlSortField> = {
  createdAt: { column: '"createdAt"', type: 'timestamptz' },
};

export type NewLabel = Pick<Label, 'name' | 'color' | 'description'>;

/** Postgres' unique violation: here, a name the tenant already has whatever its case ("Label_name_key"). */
const isNameTaken = (error: unknown) => error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';

/** `null` when the tenant already has a label of that name. */
async function unlessNameTaken(write: Promise<Label>): Promise<Label | null> {
  try {
    return await write;
  } catch (error) {
    if (isNameTaken(error)) return null;
    throw error;
  }
}

/** `q`: the names containing the text, whatever its case (LIKE's wildcards in it match themselves). */
const nameContains = (q: string) => Prisma.sql`name ILIKE ${`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`;

/** The tenant's labels (docs/decisions.md#labels). */
export function labels({ conn, pool, scope }: TenantConn) {
  return {
    find: (id: string) => conn.label.findFirst({ where: { id, ...scope } }),
    lock: (id: string) => lockScopedRow(conn, 'Label', scope, id),
    /** Null when the name is taken. */
    create: (label: NewLabel) => unlessNameTaken(conn.label.create({ data: { id: newId('label'), ...label, ...scope } })),
    /** Null when the new name is taken. */
    update: (id: string, data: Partial<NewLabel>) => unlessNameTaken(conn.label.update({ where: { id, ...scope }, data })),

    /**
     * Serializes putting labels on tasks against deleting labels, for the rest of the transaction:
     * writes that label tasks share it, a deletion holds it alone, so a task never keeps a label
     * deleted meanwhile. Taken before any task's row lock (a deletion then updates those rows).
     */
    lockVocabulary: async ({ exclusive }: { exclusive: boolean }) => {
      const key = `labels:${scope.organizationId}:${scope.mode}`;
      if (exclusive) await conn.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
      else await conn.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtext(${key}))`;
    },

    /** Those of these ids that name the tenant's labels. */
    existingIds: async (ids: string[]): Promise<string[]> =>
      ids.length === 0 ? [] : (await conn.label.findMany({ where: { id: { in: ids }, ...scope }, select: { id: true } })).map((label) => label.id),

    /** Takes the label off every task that carries it, then deletes it; the caller holds the vocabulary's lock alone. */
    remove: async (id: string) => {
      await conn.$executeRaw`
        UPDATE "Task" SET "labelIds" = array_remove("labelIds", ${id}), "updatedAt" = now()
        WHERE "labelIds" @> ARRAY[${id}]::text[] AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"`;
      await conn.label.delete({ where: { id, ...scope } });
    },

    list: ({ q }: { q?: string }) => {
      const conditions = Prisma.join(
        [Prisma.sql`"organizationId" = ${scope.organizationId}`, Prisma.sql`mode = ${scope.mode}::"Mode"`, ...(q ? [nameContains(q)] : [])],
        ' AND ',
      );
      return sqlListing<LabelSortField, Label>(pool, 'Label', conditions, LABEL_SORT_KEYS);
    },
  };
}
