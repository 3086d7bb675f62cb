import type { Request, Response } from 'express';

/**
 * What a page says after an action redirected to it: a fixed text per code, so nothing from the
 * address is ever shown back (`?done=` picks one or nothing; `?n=` can only be a count).
 */
const NOTICES = {
  'key-revoked': 'The key was revoked; it stopped working at once.',
  'webhook-created': 'The subscription was created. Send it a test delivery from its actions below.',
  'webhook-updated': 'The subscription was saved.',
  'webhook-enabled': 'The subscription is active again; its waiting deliveries are on their way.',
  'webhook-recovered': 'The subscription is active again; recovery started: {n} deliveries are on their way.',
  'webhook-disabled': 'The subscription was disabled.',
  'webhook-deleted': 'The subscription was deleted.',
  'test-sent': 'A test delivery is on its way.',
  recovered: 'Recovery started: {n} deliveries are on their way.',
  redelivered: 'The delivery is being sent again.',
  'invitation-revoked': 'The invitation was revoked; its token no longer works.',
  'member-updated': 'The member’s role was changed.',
  'member-removed': 'The member was removed; their keys and sessions stopped working.',
  'project-created': 'The project was created.',
  'project-updated': 'The project was saved.',
  'task-created': 'The task was created.',
  'task-updated': 'The task was saved.',
  'label-created': 'The label was created.',
  'label-deleted': 'The label was deleted and taken off every task.',
  'subtask-created': 'The sub-task was created.',
  'relation-created': 'The tasks are related.',
  'relation-deleted': 'The relation was removed.',
  'mode-switched': 'Mode switched.',
  joined: 'Welcome: you joined the organization and are signed in.',
  'invitation-sent': 'The invitation was mailed; it is valid 7 days.',
} as const;

export type NoticeCode = keyof typeof NOTICES;

export function noticeOf(req: Request): string | undefined {
  const { done, n } = req.query;
  if (typeof done !== 'string' || !Object.hasOwn(NOTICES, done)) return undefined;
  return NOTICES[done as NoticeCode].replace('{n}', typeof n === 'string' && /^\d{1,6}$/.test(n) ? n : '0');
}

/** Post/redirect/get: a 303 to the page, with what was done. */
export function redirectDone(res: Response, path: string, done: NoticeCode, count?: number): void {
  res.redirect(303, `${path}${path.includes('?') ? '&' : '?'}done=${done}${count === undefined ? '' : `&n=${count}`}`);
}
