import type { Request, Response, Router } from 'express';
import Joi from 'joi';
import { ApiError, forbidden } from './errors';
import { bearerKey, requireTenant, type Tenant } from './auth';
import { IdempotencyStore } from './idempotency';
import { matchedRoute } from './observability';
import type { Permission } from './permissions';
import { validate } from './validation';
import type { AppDeps } from '../deps';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  tenant: Tenant;
  deps: AppDeps;
  req: Request;
  res: Response;
}

export interface RouteDefinition<P = any, Q = any, B = any> {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  permission: Permission;
  params?: Joi.ObjectSchema<P>;
  query?: Joi.ObjectSchema<Q>;
  body?: Joi.ObjectSchema<B>;
  /** The route reads a multipart/form-data body itself (uploads); other bodies are refused with 415. */
  multipart?: boolean;
  /** 200 by default; 201 for creations. A handler returning undefined answers 204 with no body. */
  status?: number;
  handler: (input: RouteInput<P, Q, B>) => Promise<unknown>;
}

type Empty = Record<string, never>;

/** Declares an authenticated route: inputs validated with joi, permission checked, tenant handed over. */
export function defineRoute<P = Empty, Q = Empty, B = Empty>(definition: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> {
  return definition;
}

const nothing = Joi.object({});

export function mountRoutes(router: Router, deps: AppDeps, routes: readonly RouteDefinition[]): void {
  const idempotency = new IdempotencyStore(deps.redis, deps.config.redisPrefix);
  for (const route of routes) {
    router[route.method](route.path, async (req, res) => {
      matchedRoute(req, route.path);
      const tenant = requireTenant(req);
      if (!tenant.permissions.has(route.permission)) {
        throw forbidden(`This API key lacks the ${route.permission} permission, or its user's role does not allow it`);
      }
      const params = validate(route.params ?? nothing, req.params);
      const query = validate(route.query ?? nothing, req.query);
      const multipart = Boolean(req.is('multipart/form-data'));
      if (route.multipart && !multipart) throw new ApiError('unsupported_media_type', 'This endpoint takes multipart/form-data');
      if (!route.multipart && multipart) throw new ApiError('unsupported_media_type', 'Request bodies must be application/json');
      const body = route.multipart ? {} : validate(route.body ?? nothing, req.body ?? {});

      const outcome = await idempotency.run(
        {
          idempotencyKey: req.method === 'POST' ? req.get('idempotency-key') : undefined,
          apiKey: bearerKey(req),
          apiKeyId: tenant.keyId,
          // An upload is identified by its URL alone, whatever the file's bytes.
          signature: `${req.method} ${req.originalUrl}\n${route.multipart ? '' : JSON.stringify(body)}`,
        },
        async () => {
          const result = await route.handler({ params, query, body, tenant, deps, req, res });
          return result === undefined ? { status: 204, body: undefined } : { status: route.status ?? 200, body: result };
        },
      );
      if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(outcome.status);
      if (outcome.body === undefined) res.end();
      else res.json(outcome.body);
    });
  }
}
