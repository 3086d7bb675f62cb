import type { RequestHandler } from 'express';
import { newId } from '@worktrack/db';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

const acceptable = /^[\w.-]{1,128}$/;

export const newRequestId = () => newId('request');

/** Echoes a caller's X-Request-Id when it is sane, otherwise assigns one; every response carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  req.requestId = incoming && acceptable.test(incoming) ? incoming : newRequestId();
  res.setHeader('X-Request-Id', req.requestId);
  next();
};
