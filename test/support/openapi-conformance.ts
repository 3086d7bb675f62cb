import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, { $ref: string }> }>;
}

/**
 * Checks responses against the served OpenAPI document: the status must be one the operation
 * declares, the headers it requires (ETag, Location) must be there, and the body must match that
 * status's schema. One instance per document.
 */
export class Conformance {
  // References compiled once each, not inlined into every validator that uses them: most of the compile time otherwise.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, inlineRefs: false });
  private readonly templates: { pattern: RegExp; path: string }[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
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
    const validate = this.validator(`${method} ${template} ${res.status}`, schema);
    if (!validate(res.body))
      throw new Error(`${label}: body disagrees with the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
  }

  private validator(key: string, schema: object): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      // Component references point into the document registered as `doc`.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
      validate = this.ajv.compile(rebased);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
