import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { apiDocument } from '../../../services/api/src/routes.js';

/**
 * The server URL written into the committed document: the API's default `PUBLIC_BASE_URL`, so the
 * file equals what a default local `pnpm start` serves at `/v1/openapi.json`. Clients pass their own
 * `baseUrl`; the document's paths carry `/v1`.
 */
export const DOCUMENT_SERVER_URL = 'http://127.0.0.1:3000';

/** The generated files, by path relative to packages/sdk. Both are committed; a test fails when they are stale. */
export const GENERATED_FILES = {
  document: 'openapi.json',
  types: 'src/generated/openapi.ts',
} as const;

const TYPES_HEADER = `${COMMENT_HEADER.trimEnd()}
// Source: the API's route definitions (services/api/src/routes.ts) through apiDocument().
// Regenerate with \`pnpm --filter @worktrack/sdk generate\`.

`;

/**
 * Builds the OpenAPI document in-process from the route table (no server) and the TypeScript types
 * openapi-typescript derives from it. Deterministic: the same routes give the same bytes.
 */
export async function generateFiles(): Promise<Record<(typeof GENERATED_FILES)[keyof typeof GENERATED_FILES], string>> {
  const document = apiDocument(DOCUMENT_SERVER_URL);
  // A JSON round trip hands openapi-typescript a plain copy (it annotates the object it is given).
  const plain = JSON.parse(JSON.stringify(document)) as OpenAPI3;
  const ast = await openapiTS(plain, { silent: true });
  return {
    [GENERATED_FILES.document]: `${JSON.stringify(document, null, 2)}\n`,
    [GENERATED_FILES.types]: TYPES_HEADER + astToString(ast),
  };
}
