import { createClient, type Label, type ListItem, type ListPath, type Relation, type Task, type WebhookEvent } from '../src/index.js';
import type { VerifiedWebhook } from '../src/webhooks.js';

/** Compile-time checks (the root `pnpm typecheck` runs them); the test only keeps them from being dead code. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T => true as T;

describe('the generated types', () => {
  it('type lists, records, inputs and webhook payloads from the document', () => {
    assertType<Equal<ListItem<'/v1/tasks'>, Task>>();
    assertType<Equal<Extract<ListPath, '/v1/tasks/{taskId}'>, never>>(); // a single record is not a list
    assertType<Equal<Extract<ListPath, '/v1/tasks/{taskId}/comments'>, '/v1/tasks/{taskId}/comments'>>();
    assertType<Equal<Extract<WebhookEvent, { event: 'task.created' }>['data'], Task>>();
    assertType<Equal<VerifiedWebhook['payload'], WebhookEvent>>();
    assertType<Equal<ListItem<'/v1/labels'>, Label>>();
    assertType<Equal<ListItem<'/v1/tasks/{taskId}/relations'>, Relation>>();
    assertType<Equal<Extract<WebhookEvent, { event: 'label.created' }>['data'], Label>>();

    const sdk = createClient({ baseUrl: 'https://api.example.com', apiKey: 'tk_test_x', fetch: async () => new Response('{}') });
    const misuses = () => {
      // @ts-expect-error a nested list needs its path parameters
      void sdk.list('/v1/tasks/{taskId}/comments');
      // @ts-expect-error a single record is not a list
      void sdk.list('/v1/tasks/{taskId}', { path: { taskId: 'tsk_1' } });
      // @ts-expect-error an unknown filter
      void sdk.list('/v1/tasks', { query: { colour: 'red' } });
      // @ts-expect-error a task needs its title
      void sdk.POST('/v1/tasks', { body: { projectId: 'prj_1' } });
      // @ts-expect-error no such status
      void sdk.PATCH('/v1/tasks/{taskId}', { params: { path: { taskId: 'tsk_1' } }, body: { status: 'finished' } });
    };
    expect(typeof misuses).toBe('function');
  });
});
