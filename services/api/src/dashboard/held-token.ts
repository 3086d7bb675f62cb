import type { Request, Response } from 'express';

/**
 * docs/decisions.md#signing-in-safely: a mailed link's token, taken out of the address at once.
 * Opening the link stores the token in an HttpOnly cookie for the page that uses it and redirects
 * there, so the token is neither left in the address bar and history nor echoed in the page; only
 * that page's own form, posted from this site, sends it back (SameSite=Lax keeps it off a POST
 * from another site).
 */
export interface HeldToken {
  hold(res: Response, token: string): void;
  /** The held token, or '' when none came with the request. */
  read(req: Request): string;
  /** Forgets the token, when the request carried one (a request without it leaves it alone). */
  drop(req: Request, res: Response): void;
}

export function heldToken({ name, path, secure, maxAgeMs }: { name: string; path: string; secure: boolean; maxAgeMs: number }): HeldToken {
  const options = { httpOnly: true, sameSite: 'lax', secure, path } as const;
  const read = (req: Request) => {
    const token: unknown = req.cookies?.[name];
    return typeof token === 'string' ? token : '';
  };
  return {
    hold: (res, token) => res.cookie(name, token, { ...options, maxAge: maxAgeMs }),
    read,
    drop: (req, res) => {
      if (read(req) !== '') res.clearCookie(name, options);
    },
  };
}
