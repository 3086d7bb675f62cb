import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../services/api/src/openapi/document';

/** The validators of an OpenAPI document's schemas, each compiled at its first use. */
export class ResponseValidators {
  // References compiled once each, not inlined into every validator that uses them: most of the compile time otherwise.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, inlineRefs: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(components: OpenApiDocument['components']) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components }, 'doc');
  }

  /** The validator of `schema`, known by `key` (its operation and status). */
  validator(key: string, schema: object): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      // Component references point into the document registered as `doc`.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
      validate = this.ajv.compile(rebased);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  errorsText(validate: ValidateFunction): string {
    return this.ajv.errorsText(validate.errors);
  }
}
