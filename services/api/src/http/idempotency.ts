import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { ApiError, invalid } from './errors';
import { requireTenant } from './auth';

const TTL_SECONDS = 24 * 3600;

type Entry = { state: 'pending'; fingerprint: string } | { state: 'done'; fingerprint: string; status: number; body: unknown };

/**
 * DECISIONS §6: a POST repeated with the same Idempotency-Key and body within 24 hours gets
 * the first response again and does no work; the same key with another body is a conflict.
 * Keys are scoped to the organization and mode. A 5xx releases the key so the client may retry.
 */
export function idempotency(redis: Redis, prefix: string): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    if (key.length < 1 || key.length > 255) throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');

    const tenant = requireTenant(req);
    const redisKey = `${prefix}:idempotency:${tenant.organizationId}:${tenant.mode}:${key}`;
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');

    const pending: Entry = { state: 'pending', fingerprint };
    const claimed = await redis.set(redisKey, JSON.stringify(pending), 'EX', TTL_SECONDS, 'NX');
    if (!claimed) {
      const stored = JSON.parse((await redis.get(redisKey)) ?? 'null') as Entry | null;
      if (!stored) throw new ApiError('conflict', 'Idempotency-Key expired while in use; retry the request', 'Idempotency-Key');
      if (stored.fingerprint !== fingerprint)
        throw new ApiError('conflict', 'Idempotency-Key was already used with a different request', 'Idempotency-Key');
      if (stored.state === 'pending')
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(stored.status);
      return stored.body === undefined ? res.end() : res.json(stored.body);
    }

    // The outcome is stored before the response leaves, so a client retrying the moment it has
    // the answer finds it. A 5xx releases the key instead, so the request may be retried.
    const settle = (status: number, body: unknown) =>
      (status >= 500
        ? redis.del(redisKey)
        : redis.set(redisKey, JSON.stringify({ state: 'done', fingerprint, status, body } satisfies Entry), 'EX', TTL_SECONDS)
      ).catch(() => redis.del(redisKey).catch(() => undefined));
    let settled = false;
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      settled = true;
      void settle(res.statusCode, body).then(() => send(body));
      return res;
    };
    res.on('finish', () => {
      if (!settled) void settle(res.statusCode, undefined);
    });
    next();
  };
}
