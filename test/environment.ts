import { TestEnvironment } from 'jest-environment-node';
import { ResponseValidators } from './support/response-validators';
import { runDocument } from './support/run-document';

/** Loaded once per Jest worker, outside the files' module registries: what it holds outlives a file. */
let validators: ResponseValidators | undefined;

/**
 * Node's environment, giving each test file the worker's validators of the run's OpenAPI document
 * (`runResponseValidators`). Compiled again in every file, they were 5% of an API file's CPU.
 */
export default class SuiteEnvironment extends TestEnvironment {
  override async setup(): Promise<void> {
    await super.setup();
    this.global.runResponseValidators = () => (validators ??= new ResponseValidators(runDocument().components));
  }
}
