import { createApiKey } from './create-api-key';
import { listApiKeys } from './list-api-keys';
import { revokeApiKey } from './revoke-api-key';

export const apiKeyRoutes = [listApiKeys, createApiKey, revokeApiKey];
