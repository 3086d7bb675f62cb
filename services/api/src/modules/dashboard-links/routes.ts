import { createDashboardLink } from './create-dashboard-link';

export const dashboardLinkRoutes = [createDashboardLink];
