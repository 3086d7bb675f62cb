import type { Mode, Role } from '@worktrack/db';

export const PERMISSIONS = [
  'tasks:read',
  'tasks:write',
  'projects:read',
  'projects:write',
  'members:read',
  'members:write',
  'comments:read',
  'comments:write',
  'files:read',
  'files:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'api_keys:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const memberDenied: ReadonlySet<Permission> = new Set(['members:write', 'webhooks:read', 'webhooks:write', 'api_keys:write']);

/** docs/decisions.md#tenancy-and-keys: what each role allows, before the key's own permissions narrow it. */
const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(PERMISSIONS),
  member: new Set(PERMISSIONS.filter((p) => !memberDenied.has(p))),
  guest: new Set(PERMISSIONS.filter((p) => p.endsWith(':read') || p === 'comments:write')),
};

/**
 * Members and keys belong to the organization, not to a mode: managing them changes live data,
 * so a test key may never do it (a leaked test key must not be worth a live one).
 */
const LIVE_ONLY: ReadonlySet<Permission> = new Set(['members:write', 'api_keys:write']);

/** docs/decisions.md#tenancy-and-keys, a key grants only what it holds: whether a role has rights beyond the given permissions. */
export function roleExceeds(role: Role, permissions: ReadonlySet<Permission>): boolean {
  return [...ROLE_PERMISSIONS[role]].some((p) => !permissions.has(p));
}

/** A key may do what its permissions grant and its user's role allows; test keys never manage members or keys. */
export function effectivePermissions(keyPermissions: readonly string[], role: Role, mode: Mode): Set<Permission> {
  // A key made before events:read existed, holding webhooks:read, keeps reading events.
  const held = keyPermissions.includes('webhooks:read') ? [...keyPermissions, 'events:read'] : keyPermissions;
  const granted = held.includes('*') ? PERMISSIONS : PERMISSIONS.filter((p) => held.includes(p));
  return new Set(granted.filter((p) => ROLE_PERMISSIONS[role].has(p) && (mode === 'live' || !LIVE_ONLY.has(p))));
}
