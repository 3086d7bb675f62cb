import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Permission } from '../../http/permissions';
import type { AssetUrls } from '../assets';
import type { Flash } from '../context';
import type { DashboardSession } from '../session';

/** What any component of a signed-in page may need: whose page it is, what they may do, and the CSRF token for forms. */
export interface PageInfo {
  session: DashboardSession;
  permissions: ReadonlySet<Permission>;
  csrfToken: string;
  assets: AssetUrls;
  flash?: Flash | undefined;
}

export const PageContext = createContext<PageInfo | null>(null);

export function usePage(): PageInfo {
  const page = useContext(PageContext);
  if (!page) throw new Error('component rendered outside a signed-in page');
  return page;
}

/** Whether the session may do this: forms and links for operations it may not call are not shown. */
export const useCan = () => {
  const { permissions } = usePage();
  return (permission: Permission) => permissions.has(permission);
};
