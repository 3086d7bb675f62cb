import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';

/** Where test/global-setup.ts writes the run's OpenAPI document, named after the run's template database. */
export function runDocumentPath(): string {
  return path.join(tmpdir(), `${process.env.WORKTRACK_TEST_TEMPLATE}-openapi.json`);
}

let document: OpenApiDocument | undefined;

/** The OpenAPI document the API serves (built from the route table once for the run), parsed once per test file. */
export function runDocument(): OpenApiDocument {
  document ??= JSON.parse(readFileSync(runDocumentPath(), 'utf8')) as OpenApiDocument;
  return document;
}
