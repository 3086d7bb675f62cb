import { Prisma, type Label } from '../generated/prisma/client';
import { newId } from '../ids';
import { lockScopedRow, type TenantConn } from './connection';
import { sqlListing, type SqlSortField } from './listing';

export type LabelSortField = 'createdAt';

/** An organization's labels are few: they are sorted, not walked along an index. */
export const LABEL_SORT_KEYS: Record<LabelSortField, SqlSortField> = {
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
     * Those of these ids that name the tenant's labels, each locked against deletion until the
     * transaction ends, so that a task never keeps a label deleted meanwhile (see `remove`).
     */
    lockExisting: async (ids: string[]): Promise<string[]> => {
      if (ids.length === 0) return [];
      const rows = await conn.$queryRaw<{ id: string }[]>`
        SELECT id FROM "Label" WHERE id = ANY(${ids}::text[]) AND "organizationId" = ${scope.organizationId} AND mode = ${scope.mode}::"Mode"
        ORDER BY id FOR KEY SHARE`;
      return rows.map((row) => row.id);
    },

    /**
     * Takes the label off every task that carries it, then deletes it; the caller has locked it
     * (`lock`), which waits for the transactions that are putting it on tasks (`lockExisting`).
     * The tasks' labels change, so their `updatedAt` does too.
     */
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
