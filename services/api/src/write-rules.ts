import type { Mode, References, TenantTx } from '@worktrack/db';
import { invalid, type ApiError } from './http/errors';

/**
 * The records a write names that must be usable (docs/decisions.md#resources): the one statement
 * of the rules of writes, whichever operation, and however it is called (the API, the dashboard,
 * a bulk request's item).
 */
export interface Named {
  /** The project a new record goes in: one of the tenant's, and not archived. */
  projectId?: string;
  /** Users who must be members of the organization (an assignee, mentions), and the field naming them. */
  members?: { ids: string[]; param: string };
}

/** A project that is not the tenant's; when it is one of the other mode's, the refusal says so. */
function missingProject(projectId: string, references: References, mode: Mode): ApiError {
  if (!references.otherModeProjects.has(projectId)) return invalid('projectId', 'projectId must name a project of the organization');
  const other = mode === 'live' ? 'test' : 'live';
  return invalid('projectId', `That project is a ${other} project and this is a ${mode} key: use a ${other} key, or one of the ${mode} projects`);
}

/** The first rule a write breaks, given what the tenant has of what it names. */
function refusal(named: Named, references: References, mode: Mode): ApiError | undefined {
  if (named.projectId !== undefined) {
    const project = references.projects.get(named.projectId);
    if (!project) return missingProject(named.projectId, references, mode);
    if (project.archived) return invalid('projectId', 'The project is archived; unarchive it first');
  }
  const { members } = named;
  if (members?.ids.some((id) => !references.members.has(id))) return invalid(members.param, `${members.param} must name members of the organization`);
  return undefined;
}

const unique = (ids: string[]) => [...new Set(ids)];

/** Each write's refusal (400 naming the field), or undefined: one read for them all, so a bulk request's items are checked together. */
export async function refusalsOf(data: TenantTx, writes: Named[]): Promise<(ApiError | undefined)[]> {
  const references = await data.references.of({
    projectIds: unique(writes.flatMap((write) => write.projectId ?? [])),
    userIds: unique(writes.flatMap((write) => write.members?.ids ?? [])),
  });
  return writes.map((write) => refusal(write, references, data.scope.mode));
}

/** Refuses (400, naming the field) a write that breaks a rule. */
export async function assertWriteRules(data: TenantTx, named: Named): Promise<void> {
  const [refused] = await refusalsOf(data, [named]);
  if (refused) throw refused;
}
