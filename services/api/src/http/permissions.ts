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

/**
 * docs/decisions.md#tenancy-and-keys: what each role allows, before the key's own permissions narrow it.
 * Subscriptions and their deliveries (payloads, receivers' answers) are the admins' alone; events every role reads.
 */
const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(PERMISSIONS),
  member: new Set(PERMISSIONS.filter((p) => !memberDenied.has(p))),
  guest: new Set(PERMISSIONS.filter((p) => (p.endsWith(':read') && p !== 'webhooks:read') || p === 'comments:write')),
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

/** What a key's list grants: `*` everything, and `webhooks:read` also `events:read`, which keys made before it existed read events with. */
function granted(keyPermissions: readonly string[]): readonly Permission[] {
  if (keyPermissions.includes('*')) return PERMISSIONS;
  const held = new Set(keyPermissions);
  if (held.has('webhooks:read')) held.add('events:read');
  return PERMISSIONS.filter((p) => held.has(p));
}

/** A key may do what its permissions grant and its user's role allows; test keys never manage members or keys. */
export function effectivePermissions(keyPermissions: readonly string[], role: Role, mode: Mode): Set<Permission> {
  return new Set(granted(keyPermissions).filter((p) => ROLE_PERMISSIONS[role].has(p) && (mode === 'live' || !LIVE_ONLY.has(p))));
}
