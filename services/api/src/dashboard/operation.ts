import type { Request, Response } from 'express';
import Joi from 'joi';
import type { AppDeps } from '../deps';
import type { Tenant } from '../http/auth';
import { assertPermission, runOperation, type AuthenticatedRoute } from '../http/route';
import { validate } from '../http/validation';

/** Who acts, and the request they act in. */
export interface Caller {
  tenant: Tenant;
  deps: AppDeps;
  req: Request;
  res: Response;
}

export interface OperationInput {
  params?: object;
  query?: object;
  body?: object;
}

const nothing = Joi.object({});

/**
 * The dashboard's one way to read or change anything: an API route's operation, behind the same
 * permission check and joi validation as over HTTP, so no rule has a second implementation. Its
 * errors are the API's (ApiError: 400 naming the field, 403, 404, 409).
 */
export function callOperation<P, Q, B, R, Res>(route: AuthenticatedRoute<P, Q, B, R, Res>, caller: Caller, input: OperationInput = {}): Promise<Res> {
  assertPermission(caller.tenant, route.permission);
  return runOperation(route, {
    ...caller,
    params: validate(route.params ?? nothing, input.params ?? {}) as P,
    query: validate(route.query ?? nothing, input.query ?? {}) as Q,
    body: validate(route.body ?? nothing, input.body ?? {}) as B,
  });
}
