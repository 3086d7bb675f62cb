export { DERIVED_SECRETS_KEY_WARNING, loadDotEnv, type MailSettings } from './env';
export { apiEnvSchema, loadApiConfig, type ApiConfig } from './api-config';
export { loadWorkerConfig, workerEnvSchema, type WorkerConfig } from './worker-config';
export { createLogger, type LogFormat, type Logger } from './logger';
export { onParentExit, onShutdown, SHUTDOWN_DEADLINE_MS } from './shutdown';
export { unreadyDependencies } from './readiness';
export { describeStartupError } from './startup-errors';
export type { RedisNode, RedisTarget } from './redis-settings';
