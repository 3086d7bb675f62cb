import type { Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { redirectWithFlash } from './flash';
import { problemOf } from './problem';

/**
 * A button of a table's row. Done, it redirects with its notice; refused (the last admin, a role
 * the session cannot give), the refusal is shown in that row after a redirect, in people's words,
 * rather than on a page of its own.
 */
export function rowAction(
  deps: AppDeps,
  back: string | ((req: Request) => string),
  row: (req: Request) => string,
  act: (req: Request, res: Response) => Promise<void>,
): RequestHandler {
  return async (req, res) => {
    try {
      await act(req, res);
    } catch (err) {
      const { message } = problemOf(err);
      await redirectWithFlash(req, res, deps, typeof back === 'string' ? back : back(req), { kind: 'row-problem', row: row(req), message });
    }
  };
}
