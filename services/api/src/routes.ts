import type { RouteDefinition } from './http/route';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { acceptInvitation } from './modules/members/accept-invitation';
import { apiKeyRoutes } from './modules/api-keys/routes';
import { commentRoutes } from './modules/comments/routes';
import { dashboardLinkRoutes } from './modules/dashboard-links/routes';
import { listEventTypes } from './modules/events/list-event-types';
import { eventRoutes } from './modules/events/routes';
import { streamDescription } from './modules/events/stream/stream-events';
import { fileRoutes } from './modules/files/routes';
import { labelRoutes } from './modules/labels/routes';
import { memberRoutes } from './modules/members/routes';
import { projectRoutes } from './modules/projects/routes';
import { relationRoutes } from './modules/relations/routes';
import { taskRoutes } from './modules/tasks/routes';
import { webhookRoutes } from './modules/webhooks/routes';

/** The routes under /v1 that need no API key. */
export const publicRoutes: readonly RouteDefinition[] = [acceptInvitation, listEventTypes];

/** Every authenticated route under /v1: the app mounts it, and the security and fuzz suites derive their coverage from it. */
export const apiRoutes: readonly RouteDefinition[] = [
  ...taskRoutes,
  ...relationRoutes,
  ...projectRoutes,
  ...labelRoutes,
  ...apiKeyRoutes,
  ...webhookRoutes,
  ...fileRoutes,
  ...memberRoutes,
  ...commentRoutes,
  ...eventRoutes,
  ...dashboardLinkRoutes,
];

/** The OpenAPI document of every route, as `GET /v1/openapi.json` serves it and the SDK is generated from it. */
export function apiDocument(serverUrl: string): OpenApiDocument {
  return buildOpenApiDocument([...apiRoutes, ...publicRoutes], serverUrl, [streamDescription]);
}
