import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';
import type { PrecompiledValidators } from './openapi-conformance';

/** Where test/global-setup.ts writes the run's OpenAPI document, named after the run's template database. */
export function runDocumentPath(): string {
  return path.join(tmpdir(), `${process.env.WORKTRACK_TEST_TEMPLATE}-openapi.json`);
}

/**
 * Where test/global-setup.ts writes the validators of the document's responses (`validatorsModule`):
 * inside the repository's node_modules, where the ajv runtime they require resolves.
 */
export function runValidatorsPath(): string {
  return path.join(__dirname, '../../node_modules/.cache/worktrack-test', `${process.env.WORKTRACK_TEST_TEMPLATE}-validators.js`);
}

let document: OpenApiDocument | undefined;

/** The OpenAPI document the API serves (built from the route table once for the run), parsed once per test file. */
export function runDocument(): OpenApiDocument {
  document ??= JSON.parse(readFileSync(runDocumentPath(), 'utf8')) as OpenApiDocument;
  return document;
}

/** The run's validators of the document's responses, compiled once for the run. */
export function runValidators(): PrecompiledValidators {
  return require(runValidatorsPath()) as PrecompiledValidators;
}
