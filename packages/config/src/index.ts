export { loadDotEnv } from './env';
export { loadApiConfig, type ApiConfig, type S3Settings } from './api-config';
export { loadWorkerConfig, type WorkerConfig } from './worker-config';
export { createLogger, type Logger } from './logger';
export { onParentExit, onShutdown } from './shutdown';
export { unreadyDependencies } from './readiness';
