import type { TenantConn } from './connection';

// Of the named projects, the organization's with whether each is archived and of the tenant's mode;
// of the named users, the organization's members. One prepared statement on the pool: the write rules read it outside the
// transaction (a rule that held then is what a writer sees anyway under read committed).
const REFERENCES = {
  name: 'references.of',
  text: `
    SELECT
      (SELECT coalesce(json_object_agg(id, json_build_object('archived', archived, 'ownMode', mode = $2::"Mode")), '{}') FROM "Project"
        WHERE id = ANY($3::text[]) AND "organizationId" = $1) AS projects,
      (SELECT coalesce(array_agg("userId"), '{}') FROM "Membership"
        WHERE "organizationId" = $1 AND "userId" = ANY($4::text[])) AS members`,
};

/** What a write names, as the tenant sees it: projects (id → archived) and members, and the projects of the other mode. */
export interface References {
  projects: ReadonlyMap<string, { archived: boolean }>;
  /** Named projects that are the organization's but of the other mode than the tenant's (live or test). */
  otherModeProjects: ReadonlySet<string>;
  members: ReadonlySet<string>;
}

/** What the API's write rules (services/api/src/modules/write-rules.ts) read about the records a write names. */
export function references({ pool, scope }: TenantConn) {
  return {
    of: async ({ projectIds = [], userIds = [] }: { projectIds?: string[]; userIds?: string[] }): Promise<References> => {
      if (projectIds.length === 0 && userIds.length === 0) return { projects: new Map(), otherModeProjects: new Set(), members: new Set() };
      const { rows } = await pool.query<{ projects: Record<string, { archived: boolean; ownMode: boolean }>; members: string[] }>({
        ...REFERENCES,
        values: [scope.organizationId, scope.mode, projectIds, userIds],
      });
      const { projects, members } = rows[0]!;
      const named = Object.entries(projects);
      return {
        projects: new Map(named.filter(([, project]) => project.ownMode).map(([id, { archived }]) => [id, { archived }])),
        otherModeProjects: new Set(named.filter(([, project]) => !project.ownMode).map(([id]) => id)),
        members: new Set(members),
      };
    },
  };
}
