import type { ComponentChildren } from 'preact';
import type { Role } from '@worktrack/db';
import { effectivePermissions, type Permission } from '../../http/permissions';
import type { DisabledWebhook } from '@worktrack/db';
import { ActionButton, PostForm, ShownOnce, Time } from './components';
import { usePage } from './page-context';

export type Section = 'overview' | 'projects' | 'tasks' | 'labels' | 'webhooks' | 'keys' | 'members';

type Can = (permission: Permission) => boolean;

const NAV: { section: Section; label: string; path: string; visible: (can: Can, role: Role) => boolean }[] = [
  { section: 'overview', label: 'Overview', path: '/dashboard', visible: () => true },
  { section: 'projects', label: 'Projects', path: '/dashboard/projects', visible: (can) => can('projects:read') },
  { section: 'tasks', label: 'Tasks', path: '/dashboard/tasks', visible: (can) => can('tasks:read') },
  { section: 'labels', label: 'Labels', path: '/dashboard/labels', visible: (can) => can('projects:read') },
  { section: 'webhooks', label: 'Webhooks', path: '/dashboard/webhooks', visible: (can) => can('webhooks:read') },
  // Keys are managed in live mode only, as with a test key: in test mode the page says so.
  { section: 'keys', label: 'API keys', path: '/dashboard/keys', visible: (_can, role) => effectivePermissions(['*'], role, 'live').has('api_keys:write') },
  { section: 'members', label: 'Members', path: '/dashboard/members', visible: (can) => can('members:read') },
];

const sectionPath = (section: Section) => NAV.find((item) => item.section === section)!.path;

function ModeSwitch({ section }: { section: Section | null }) {
  const { session } = usePage();
  const other = session.mode === 'live' ? 'test' : 'live';
  return (
    <PostForm action="/dashboard/mode" class="mode-switch" label="Data mode">
      <input type="hidden" name="mode" value={other} />
      <input type="hidden" name="next" value={section ? sectionPath(section) : '/dashboard'} />
      <span class={`mode mode-${session.mode}`}>{session.mode === 'live' ? 'Live data' : 'Test data'}</span>
      <button type="submit" class="secondary">
        Switch to {other}
      </button>
    </PostForm>
  );
}

/** Every signed-in page: who and where, the sections this role may see, the mode, and the page. */
/** Subscriptions disabled by failed deliveries, on every page until re-enabled or deleted (docs/decisions.md#email-and-invitations). */
function DisabledBanner({ webhooks }: { webhooks: DisabledWebhook[] }) {
  if (webhooks.length === 0) return null;
  return (
    <section class="alert-banner" aria-labelledby="disabled-title">
      <h2 id="disabled-title">{webhooks.length === 1 ? 'A webhook subscription is disabled' : 'Webhook subscriptions are disabled'}</h2>
      <p>Their deliveries kept failing, so they get no new events. Mend the endpoint, then re-enable: it offers to recover what was missed.</p>
      <ul>
        {webhooks.map((webhook) => (
          <li>
            <a href={`/dashboard/webhooks/${webhook.id}`}>{webhook.description || webhook.url}</a>, disabled{' '}
            <Time value={webhook.disabledAt?.toISOString() ?? null} />
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Layout({
  title,
  section,
  notice,
  disabledWebhooks,
  children,
}: {
  title: string;
  section: Section | null;
  notice?: string | undefined;
  disabledWebhooks: DisabledWebhook[];
  children: ComponentChildren;
}) {
  const { session, permissions, assets, flash } = usePage();
  const can: Can = (permission) => permissions.has(permission);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${session.organizationName} · worktrack`}</title>
        <link rel="icon" href={assets.icon} type="image/svg+xml" />
        <link rel="stylesheet" href={assets.css} />
        <script src={assets.js} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="brand">
            <strong>worktrack</strong> <span class="org">{session.organizationName}</span>
          </div>
          <nav aria-label="Sections">
            <ul>
              {NAV.filter((item) => item.visible(can, session.role)).map((item) => (
                <li>
                  <a href={item.path} aria-current={item.section === section ? 'page' : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <ModeSwitch section={section} />
            <span class="user">
              {session.email} <span class="role">({session.role})</span>
            </span>
            <ActionButton action="/dashboard/sign-out" label="Sign out" />
          </div>
        </header>
        {session.mode === 'test' && (
          <p class="test-banner" role="note">
            Test mode: you are looking at test data. Live data is not shown.
          </p>
        )}
        <DisabledBanner webhooks={disabledWebhooks} />
        <main id="main" tabIndex={-1}>
          {notice && (
            <p class="notice" role="status">
              {notice}
            </p>
          )}
          <h1>{title}</h1>
          {flash?.kind === 'shown-once' && <ShownOnce id="shown-once" label={flash.label} value={flash.value} note={flash.note} link={flash.link} />}
          {children}
        </main>
      </body>
    </html>
  );
}
