import type { Response } from 'supertest';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';
import type { ResponseValidators } from './response-validators';

declare global {
  /**
   * The validators of the run's OpenAPI document, shared by the test files of a Jest worker
   * (test/environment.ts): compiled once per worker rather than once per file.
   */
  var runResponseValidators: () => ResponseValidators;
}

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, { $ref: string }> }>;
}

/**
 * Checks responses against the served OpenAPI document: the status must be one the operation
 * declares, the headers it requires (ETag, Location) must be there, and the body must match that
 * status's schema (the document's `validators`).
 */
export class Conformance {
  private readonly templates: { pattern: RegExp; path: string }[];

  constructor(
    private readonly document: OpenApiDocument,
    private readonly validators: ResponseValidators,
  ) {
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
    const validate = this.validators.validator(`${method} ${template} ${res.status}`, schema);
    if (!validate(res.body))
      throw new Error(`${label}: body disagrees with the document: ${this.validators.errorsText(validate)}\n${JSON.stringify(res.body)}`);
  }
}
