import Ajv2020, { _, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import type { Response } from 'supertest';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, { $ref: string }> }>;
}

/** Validators by `responseKey`, compiled ahead (`validatorsModule`). */
export type PrecompiledValidators = Record<string, ValidateFunction>;

const responseKey = (method: string, template: string, status: number | string) => `${method.toLowerCase()} ${template} ${status}`;

/** The id the document is registered under, absolute, so that any schema's references resolve against it. */
const DOC_ID = 'https://worktrack.test/openapi';

/** Component references point into the document registered as DOC_ID. */
const rebased = (schema: object) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)) as object;

function documentAjv(document: OpenApiDocument, source: boolean): Ajv2020 {
  // References compiled once each, not inlined into every validator that uses them: most of the
  // compile time otherwise.
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    inlineRefs: false,
    ...(source ? { code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } } : {}),
  });
  addFormats(ajv);
  ajv.addSchema({ $id: DOC_ID, components: document.components });
  return ajv;
}

/**
 * The source of a CommonJS module exporting a validator of every response body the document
 * declares, by `responseKey`: compiled once for the run (test/support/write-run-document.ts) rather
 * than in every test file. It requires ajv's runtime and ajv-formats, so it is written where the
 * repository's node_modules resolve.
 */
export function validatorsModule(document: OpenApiDocument): string {
  const ajv = documentAjv(document, true);
  const idsByKey: Record<string, string> = {};
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations as Record<string, Operation>)) {
      for (const [status, declared] of Object.entries(operation.responses ?? {})) {
        const schema = declared.content?.['application/json']?.schema;
        if (!schema) continue;
        const id = `${DOC_ID}/responses/${Object.keys(idsByKey).length}`;
        ajv.addSchema(rebased(schema), id);
        idsByKey[responseKey(method, template, status)] = id;
      }
    }
  }
  return standaloneCode(ajv, idsByKey);
}

/**
 * Checks responses against the served OpenAPI document: the status must be one the operation
 * declares, the headers it requires (ETag, Location) must be there, and the body must match that
 * status's schema. One instance per document; `precompiled` validators are used where given.
 */
export class Conformance {
  private readonly ajv: Ajv2020;
  private readonly templates: { pattern: RegExp; path: string }[];
  private readonly compiled: Map<string, ValidateFunction>;

  constructor(
    private readonly document: OpenApiDocument,
    precompiled: PrecompiledValidators = {},
  ) {
    this.ajv = documentAjv(document, false);
    this.compiled = new Map(Object.entries(precompiled));
    this.templates = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws, naming the route, when the response disagrees with the document. */
  check(method: string, url: string, res: Response): void {
    const pathname = new URL(url, 'http://x').pathname;
    const template = this.templates.find((t) => t.pattern.test(pathname))?.path;
    const operation = template ? (this.document.paths[template]![method.toLowerCase()] as Operation | undefined) : undefined;
    if (!operation) return; // unknown routes and paths outside /v1 are not the document's business
    const label = `${method.toUpperCase()} ${template} → ${res.status}`;
    const declared = operation.responses[String(res.status)];
    if (!declared) throw new Error(`${label}: status not declared in the OpenAPI document (body ${JSON.stringify(res.body)})`);
    for (const [name, { $ref }] of Object.entries(declared.headers ?? {})) {
      const header = this.document.components.headers[$ref.replace('#/components/headers/', '')] as { required?: boolean } | undefined;
      if (header?.required && res.headers[name.toLowerCase()] === undefined)
        throw new Error(`${label}: the document requires the ${name} header, the response has none`);
    }
    const schema = declared.content?.['application/json']?.schema;
    if (!schema) {
      if (res.text) throw new Error(`${label}: the document declares no body, the response has one`);
      return;
    }
    const validate = this.validator(responseKey(method, template!, res.status), schema);
    if (!validate(res.body))
      throw new Error(`${label}: body disagrees with the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
  }

  private validator(key: string, schema: object): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebased(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
