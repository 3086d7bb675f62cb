import { randomUUID } from 'node:crypto';
import { createHarnessWithWorker } from '@test-support/worker-harness';
import { as, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver, type Receiver } from '@test-support/receiver';

/*
 * Label and relation events delivered by the shipped worker (docs/decisions.md#labels,
 * docs/decisions.md#relations): project-scoped subscriptions get relation events through the first
 * task's project and never label events; filters and event lists select them like any other.
 */

let h: Harness;
let org: TestOrg;
const receivers: Receiver[] = [];

beforeAll(async () => {
  h = createHarnessWithWorker();
  org = await createOrg(h.db);
});
afterAll(async () => {
  await h.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const api = () => as(h.app, org.liveKey);

async function subscribe(controls: object, events: string[]): Promise<{ id: string; receiver: Receiver }> {
  const receiver = await startReceiver({ status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' });
  receivers.push(receiver);
  const res = await api().post('/v1/webhooks', { url: receiver.url, events, secret: 'secret_known_secret', ...controls });
  expect(res.status).toBe(201);
  return { id: res.body.id, receiver };
}

async function deliveredEvents(webhookId: string): Promise<string[]> {
  const deliveries = await h.db.delivery.findMany({ where: { webhookId, test: false }, orderBy: { createdAt: 'asc' } });
  return deliveries.map((delivery) => {
    const parsed = JSON.parse(delivery.body) as { event: string; data: { id: string } };
    return `${parsed.event} ${parsed.data.id}`;
  });
}

it('sends label events to unscoped subscriptions only, and relation events through their first task', async () => {
  const [a, b] = await Promise.all(['A', 'B'].map(async (name) => (await api().post('/v1/projects', { name: `${name} ${randomUUID()}` })).body.id as string));
  const [taskA, taskB] = await Promise.all([a, b].map(async (projectId) => (await api().post('/v1/tasks', { projectId, title: 'Related' })).body.id as string));
  const types = ['label.created', 'label.updated', 'label.deleted', 'relation.created', 'relation.deleted'];
  const scoped = await subscribe({ projectIds: [a] }, ['*']);
  const everything = await subscribe({}, types);
  const blocking = await subscribe({ filter: { type: 'blocks' } }, ['relation.created']);

  const label = (await api().post('/v1/labels', { name: 'Release' })).body.id;
  await api().patch(`/v1/labels/${label}`, { color: '#0e8a16' });
  await api().delete(`/v1/labels/${label}`);
  const fromA = (await api().post(`/v1/tasks/${taskA}/relations`, { type: 'blocks', taskId: taskB })).body.id;
  const fromB = (await api().post(`/v1/tasks/${taskB}/relations`, { type: 'relates_to', taskId: taskA })).body.id;
  // Deleted from B's side: still A's relation, by its first task.
  expect((await api().delete(`/v1/tasks/${taskB}/relations/${fromA}`)).status).toBe(204);
  await waitFor(async () => ((await h.db.outboxEvent.count({ where: { organizationId: org.organization.id, dispatchedAt: null } })) === 0 ? true : undefined));

  expect(await deliveredEvents(everything.id)).toEqual([
    `label.created ${label}`,
    `label.updated ${label}`,
    `label.deleted ${label}`,
    `relation.created ${fromA}`,
    `relation.created ${fromB}`,
    `relation.deleted ${fromA}`,
  ]);
  expect(await deliveredEvents(scoped.id)).toEqual([`relation.created ${fromA}`, `relation.deleted ${fromA}`]);
  expect(await deliveredEvents(blocking.id)).toEqual([`relation.created ${fromA}`]);

  const received = await scoped.receiver.waitForCount(2);
  const created = received.find(({ json }) => json.event === 'relation.created')!.json;
  expect(created.data).toEqual({
    id: fromA,
    type: 'blocks',
    taskId: taskA,
    relatedTaskId: taskB,
    projectId: a,
    createdAt: expect.stringMatching(/Z$/),
  });
});

it('sends a sample of each new type as a test delivery', async () => {
  const { id, receiver } = await subscribe({}, ['label.created']);
  for (const event of ['label.updated', 'relation.deleted']) expect((await api().post(`/v1/webhooks/${id}/test`, { event })).status).toBeLessThan(300);
  const received = await receiver.waitForCount(2);
  expect(received.map(({ json }) => [json.event, json.test]).sort()).toEqual([
    ['label.updated', true],
    ['relation.deleted', true],
  ]);
});
