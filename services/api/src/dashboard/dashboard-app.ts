import type { AppDeps } from '../deps';
import type { AssetUrls } from './assets';

/** What every page of the dashboard is built with. */
export interface DashboardApp {
  deps: AppDeps;
  assets: AssetUrls;
}
