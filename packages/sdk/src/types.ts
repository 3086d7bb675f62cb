import type { components, paths, webhooks } from './generated/openapi.js';

export type { components, operations, paths, webhooks } from './generated/openapi.js';

/** Every named schema of the document (`Schemas['Task']`, `Schemas['FileRecord']`, ...). */
export type Schemas = components['schemas'];
export type Task = Schemas['Task'];
export type Project = Schemas['Project'];
export type Member = Schemas['Member'];
export type Comment = Schemas['CommentRecord'];
export type Webhook = Schemas['Webhook'];
export type Delivery = Schemas['Delivery'];
export type ApiKey = Schemas['ApiKey'];
export type Invitation = Schemas['Invitation'];
export type Label = Schemas['Label'];
/** A relation as one of its tasks sees it (`blocks`, `blocked_by`, ...). */
export type Relation = Schemas['Relation'];
/** The body of every non-2xx answer: `{ error: { code, message, param, type } }`. */
export type ApiErrorBody = Schemas['ErrorBody'];

type JsonOk<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
type GetOperation<P extends keyof paths> = paths[P] extends { get: infer Operation } ? Operation : never;

/** The paths whose GET answers a page: `{ data: [...], pagination }`. */
export type ListPath = {
  [P in keyof paths]: [JsonOk<GetOperation<P>>] extends [never] ? never : JsonOk<GetOperation<P>> extends { data: unknown[]; pagination: unknown } ? P : never;
}[keyof paths];

/** One page of a list, as the API answers it. */
export type ListPage<P extends ListPath> = JsonOk<GetOperation<P>>;

/** A record of a list (`ListItem<'/v1/tasks'>` is a `Task`). */
export type ListItem<P extends ListPath> = ListPage<P> extends { data: (infer Item)[] } ? Item : never;

/** The query parameters of a list. */
export type ListQuery<P extends ListPath> = GetOperation<P> extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

type ListPathParams<P extends ListPath> = GetOperation<P> extends { parameters: { path: infer Params } } ? { path: Params } : { path?: never };

export type ListOptions<P extends ListPath> = ListPathParams<P> & {
  /** Filters, `limit` (the page size) and a starting `offset`; the iterator moves through the pages itself. */
  query?: ListQuery<P>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
};

type WebhookBody<K extends keyof webhooks> = webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer Body } } } } ? Body : never;

/** The 20 event types. */
export type WebhookEventType = keyof webhooks & string;

/** The body of a delivery, narrowed by its `event` field. */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = { [T in K]: WebhookBody<T> }[K];

/** What a key may be granted (`["*"]` grants them all); `events:read` reads the events, and `webhooks:read` includes it. */
export type Permission = Exclude<ApiKey['permissions'][number], '*'>;
