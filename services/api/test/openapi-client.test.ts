import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { UserConfig } from '@hey-api/openapi-ts';
import type { z } from 'zod';
import { repoRoot } from '@test-support/processes';
import { startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import { startTestWorker } from '@test-support/worker-harness';
import { createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver, type Receiver } from '@test-support/receiver';

/*
 * A third-party generator reads the document the app serves and writes a client into a temporary
 * folder: @hey-api/openapi-ts with its fetch client, its TypeScript types and its zod plugin, every
 * response validated by the generated zod schemas. The client must compile under this repository's
 * compiler settings, and a round trip through it (project, task with custom fields, list, patch,
 * upload, webhook deliveries) must pass validation. A document that generators misread (a map of
 * `never`, a timestamp as a bare string, a clash with a built-in name) fails here.
 */

const run = promisify(execFile);

let s3: TestStore;
let h: Harness;
let worker: { close(): Promise<void> };
let receiver: Receiver;
let server: Server;
let base: string;
let dir: string;
let org: TestOrg;
/** The generated SDK functions, on a default client pointed at the app with the org's key. */
let generated: GeneratedClient;

beforeAll(async () => {
  const prefix = `wt-test-${randomUUID().slice(0, 8)}`;
  s3 = await startTestStore();
  h = createHarness({
    REDIS_PREFIX: prefix,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    ...storeEnv(s3),
  });
  worker = startTestWorker({ prefix });
  receiver = await startReceiver({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"received":true}' });
  server = h.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  org = await createOrg(h.db);

  // The generated code imports zod and its types name DOM globals: it resolves them from the repository.
  dir = await mkdtemp(path.join(os.tmpdir(), 'worktrack-generated-client-'));
  await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const config: UserConfig = {
    input: `${base}/v1/openapi.json`,
    output: { path: path.join(dir, 'client') },
    logs: { level: 'silent' },
    plugins: [
      '@hey-api/client-fetch',
      '@hey-api/typescript',
      // Input timestamps take an offset as well as `Z` (docs/decisions.md#ids-and-timestamps).
      { name: 'zod', dates: { offset: true } },
      { name: '@hey-api/sdk', validator: { request: 'zod', response: 'zod' } },
    ],
  };
  // The generator is an ES module only, which Jest's CommonJS loader cannot import: it runs in a process of its own.
  await writeFile(path.join(dir, 'generate.mjs'), "import { createClient } from '@hey-api/openapi-ts';\nawait createClient(JSON.parse(process.argv[2]));\n");
  await run(process.execPath, [path.join(dir, 'generate.mjs'), JSON.stringify(config)], { cwd: dir });

  generated = (await import(path.join(dir, 'client', 'index.ts'))) as GeneratedClient;
  const { client } = (await import(path.join(dir, 'client', 'client.gen.ts'))) as { client: GeneratedHttpClient };
  client.setConfig({ baseUrl: base, auth: () => org.liveKey, throwOnError: true });
  // Generating takes 3-4 s of CPU, several times that on a machine shared with other runs.
}, 60_000);

afterAll(async () => {
  server?.close();
  await worker?.close();
  await receiver?.close();
  await h?.close();
  await s3?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A use of the generated client that only compiles if the document types what it should: custom
 * fields as a map of values (not `never`), webhook payloads by name, records under names that
 * shadow no built-in.
 */
const USAGE = `
import type { z } from 'zod';
import { createTask, type ErrorBody, type FileRecord, type Task, type TaskCreatedWebhookPayload } from './client/index.js';
import { zTask } from './client/zod.gen.js';

export async function use(): Promise<[Task['customFields'], FileRecord['size'], ErrorBody['error']['code'], TaskCreatedWebhookPayload['event']]> {
  const customFields: z.infer<typeof zTask>['customFields'] = { estimate: 3, billable: true, note: 'x', cleared: null };
  const { data } = await createTask({ body: { title: 't', projectId: 'prj_1', dueDate: '2026-12-01T09:30:00+02:00', customFields }, throwOnError: true });
  return [data.customFields, 0, 'method_not_allowed', 'task.created'];
}
`;

describe('a client generated by @hey-api/openapi-ts from the served document', () => {
  it('compiles under the repository’s compiler settings, with custom fields as a map of values', async () => {
    await writeFile(path.join(dir, 'usage.ts'), USAGE);
    // The repository's settings as they are, with the DOM types the generated fetch client is written against.
    const tsconfig = { extends: path.join(repoRoot, 'tsconfig.json'), compilerOptions: { lib: ['es2023', 'dom'] }, include: ['client', 'usage.ts'] };
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const problems = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(problems).toBe('');
  }, 30_000);

  it('runs a round trip with every request and response validated by the generated zod schemas', async () => {
    const project = (await generated.createProject({ body: { name: 'Generated' } })).data;
    const webhook = (
      await generated.createWebhook({ body: { url: receiver.url, events: ['task.created', 'task.updated', 'file.uploaded'], secret: 'secret_known_secret' } })
    ).data;

    const created = (
      await generated.createTask({
        body: {
          title: 'Typed',
          projectId: project.id,
          dueDate: '2026-12-01T09:30:00Z',
          customFields: { estimate: 3, billable: true, note: 'x', cleared: null },
        },
      })
    ).data;
    expect(created.customFields).toEqual({ estimate: 3, billable: true, note: 'x', cleared: null });

    // Lists go comma-separated in one parameter (style form, explode false); timestamps as date-times.
    const listed = (
      await generated.listTasks({
        query: { projectId: project.id, status: ['todo', 'in_progress'], createdSince: '2000-01-01T00:00:00+01:00', sort: '-createdAt' },
      })
    ).data;
    expect(listed.data.map((task: { id: string }) => task.id)).toEqual([created.id]);

    const patched = (
      await generated.updateTask({ path: { taskId: created.id }, body: { dueDate: '2026-12-01T09:30:00+02:00', customFields: { estimate: 5 } } })
    ).data;
    expect({ dueDate: patched.dueDate, customFields: patched.customFields }).toEqual({ dueDate: '2026-12-01T07:30:00.000Z', customFields: { estimate: 5 } });

    // The zod plugin reads a binary part as a string (hey-api/hey-api#4265), so this one request goes unchecked; its response is.
    const uploaded = (
      await generated.uploadFile({
        body: { projectId: project.id, file: new File(['hello'], 'hello.txt', { type: 'text/plain' }) },
        requestValidator: undefined,
      })
    ).data;
    expect({ name: uploaded.name, size: uploaded.size }).toEqual({ name: 'hello.txt', size: 5 });

    const deliveries = await waitFor(async () => {
      const page = (await generated.listWebhookDeliveries({ path: { webhookId: webhook.id } })).data;
      return page.data.length === 3 && page.data.every((d: { status: string }) => d.status === 'succeeded') ? page.data : undefined;
    });
    expect(deliveries.map((d: { event: string }) => d.event).sort()).toEqual(['file.uploaded', 'task.created', 'task.updated']);
    const delivery = (await generated.getWebhookDelivery({ path: { webhookId: webhook.id, deliveryId: deliveries[0].id } })).data;
    expect(delivery.attempts).toEqual([expect.objectContaining({ attemptNumber: 1, responseStatus: 200 })]);

    // What the receiver got is what the document's `webhooks` entries say.
    const schemas = (await import(path.join(dir, 'client', 'zod.gen.ts'))) as Record<string, z.ZodObject<{ body: z.ZodType; headers: z.ZodObject }>>;
    const names = {
      'task.created': 'zTaskCreatedWebhookRequest',
      'task.updated': 'zTaskUpdatedWebhookRequest',
      'file.uploaded': 'zFileUploadedWebhookRequest',
    };
    expect(receiver.received).toHaveLength(3);
    for (const { json, body, headers } of receiver.received) {
      const { event } = json;
      const schema = schemas[names[event as keyof typeof names]]!;
      // Header names are case-insensitive; the schema keys them as the document spells them.
      const declared = Object.keys(schema.shape.headers.shape);
      const request = { body: JSON.parse(body), headers: Object.fromEntries(declared.map((name) => [name, headers[name.toLowerCase()]])) };
      expect({ event, issues: schema.safeParse(request).error?.issues ?? [] }).toEqual({ event, issues: [] });
    }
  }, 30_000);

  it('labels, nests and relates tasks, every request and response validated', async () => {
    const project = (await generated.createProject({ body: { name: 'Linked' } })).data;
    const bug = (await generated.createLabel({ body: { name: 'bug', color: '#d73a4a' } })).data;
    const found = (await generated.listLabels({ query: { q: 'BU' } })).data;
    expect(found.data.map((label: { id: string }) => label.id)).toEqual([bug.id]);

    const epic = (await generated.createTask({ body: { title: 'Epic', projectId: project.id, labelIds: [bug.id] } })).data;
    const child = (await generated.createTask({ body: { title: 'Child', projectId: project.id, parentId: epic.id, status: 'done' } })).data;
    expect({ labelIds: epic.labelIds, parentId: child.parentId }).toEqual({ labelIds: [bug.id], parentId: epic.id });
    expect((await generated.getTask({ path: { taskId: epic.id } })).data.subtasks).toEqual({ total: 1, done: 1 });
    const children = (await generated.listTasks({ query: { parentId: epic.id } })).data;
    expect(children.data.map((task: { id: string }) => task.id)).toEqual([child.id]);
    const labelled = (await generated.listTasks({ query: { labelId: [bug.id], topLevel: true } })).data;
    expect(labelled.data.map((task: { id: string }) => task.id)).toEqual([epic.id]);

    const relation = (await generated.createTaskRelation({ path: { taskId: child.id }, body: { type: 'blocks', taskId: epic.id } })).data;
    expect(relation.task).toEqual({ id: epic.id, title: 'Epic', status: 'todo', projectId: project.id });
    const fromEpic = (await generated.listTaskRelations({ path: { taskId: epic.id } })).data;
    expect(fromEpic.data.map((r: { type: string; task: { id: string } }) => [r.type, r.task.id])).toEqual([['blocked_by', child.id]]);
    await generated.deleteTaskRelation({ path: { taskId: epic.id, relationId: relation.id } });
    await generated.deleteLabel({ path: { labelId: bug.id } });
    expect((await generated.getTask({ path: { taskId: epic.id } })).data.labelIds).toEqual([]);
  });

  it('does validate: a timestamp that is not a date-time never leaves, a response the document does not allow fails the call', async () => {
    const { createClient } = (await import(path.join(dir, 'client', 'client', 'index.ts'))) as { createClient(config: object): GeneratedHttpClient };
    const project = (await generated.createProject({ body: { name: 'Tampered' } })).data;
    const task = (await generated.createTask({ body: { title: 'Nested', projectId: project.id } })).data;
    // A custom field holding an object: the server never answers so, the document allows only scalars.
    const tampering = createClient({ baseUrl: base, auth: () => org.liveKey, throwOnError: true });
    tampering.interceptors.response.use(
      async (response: Response) =>
        new Response(JSON.stringify({ ...(await response.json()), customFields: { nested: { no: true } } }), {
          status: response.status,
          headers: response.headers,
        }),
    );
    await expect(generated.getTask({ client: tampering, path: { taskId: task.id } })).rejects.toEqual(zodError('customFields'));
    // Refused by the request's schema before it is sent: the server's 400 would be an error body, not a ZodError.
    await expect(generated.listTasks({ query: { createdSince: 'yesterday' } })).rejects.toEqual(zodError('createdSince'));
  });
});

/** A validation failure of the generated zod schemas, naming the field. */
const zodError = (field: string) => expect.objectContaining({ name: 'ZodError', message: expect.stringContaining(`"${field}"`) });

/** What the test calls of the generated module (its own types are checked by the compile test above). */
type Operation = (options: Record<string, unknown>) => Promise<{ data: any; response: Response }>;
type GeneratedClient = Record<
  | 'createProject'
  | 'createWebhook'
  | 'createTask'
  | 'listTasks'
  | 'updateTask'
  | 'getTask'
  | 'uploadFile'
  | 'listWebhookDeliveries'
  | 'getWebhookDelivery'
  | 'createLabel'
  | 'listLabels'
  | 'deleteLabel'
  | 'createTaskRelation'
  | 'listTaskRelations'
  | 'deleteTaskRelation',
  Operation
>;
interface GeneratedHttpClient {
  setConfig(config: object): void;
  interceptors: { response: { use(fn: (response: Response) => Promise<Response>): void } };
}
