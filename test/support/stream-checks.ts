import type { Db } from '@worktrack/db';
import { hashApiKey } from '../../services/api/src/http/auth';
import { keyWith, type TestOrg } from './api-harness';
import { openStream } from './sse';
import { waitFor } from './wait-for';

/**
 * On whatever Redis the API at `apiUrl` runs (docs/decisions.md#history-actors-and-live-events): a
 * key's open event streams are counted (the 6th: 429), get the organization's events, and close
 * within 5 s of the key's revocation. `through` makes the project and revokes the key, on another
 * replica or the same API.
 */
export async function expectStreamsOfOneKey(
  apiUrl: string,
  db: Db,
  org: TestOrg,
  through: { createProject: () => Promise<string>; revokeKey: (keyId: string) => Promise<void> },
): Promise<void> {
  const key = await keyWith(db, org, ['events:read']);
  const open = () => openStream(`${apiUrl}/v1/events/stream`, key);
  const streams = await Promise.all(Array.from({ length: 5 }, open));
  try {
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await open()).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    const projectId = await through.createProject();
    const received = (s: (typeof streams)[number]) => s.messages.some((m) => (m.data.data as { id: string }).id === projectId);
    await waitFor(async () => (streams.every(received) ? true : undefined));

    const keyId = (await db.apiKey.findFirstOrThrow({ where: { hash: hashApiKey(key) } })).id;
    const revoked = Date.now();
    await through.revokeKey(keyId);
    await Promise.all(streams.map((s) => s.ended));
    expect(Date.now() - revoked).toBeLessThan(5000);
  } finally {
    for (const s of streams) s.close();
  }
}
