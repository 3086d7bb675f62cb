import { PerformanceObserver } from 'node:perf_hooks';
import { TestEnvironment } from 'jest-environment-node';
import { ResponseValidators } from './support/response-validators';
import { runDocument } from './support/run-document';

/** Loaded once per Jest worker, outside the files' module registries: what it holds outlives a file. */
let validators: ResponseValidators | undefined;

/**
 * The performance observers started by the file running: prom-client's default metrics observe
 * garbage collections and never stop. Node's perf_hooks, which every file of a worker shares, holds
 * each observer, and through its callback the file's context and every module the file loaded, for
 * the worker's life (docs/testing.md, "Nothing of a file outlives it").
 */
const observers = new Set<PerformanceObserver>();
const observe = PerformanceObserver.prototype.observe;
PerformanceObserver.prototype.observe = function (this: PerformanceObserver, ...options: Parameters<typeof observe>) {
  observers.add(this);
  return observe.apply(this, options);
};

/**
 * Node's environment, giving each test file the worker's validators of the run's OpenAPI document
 * (`runResponseValidators`), compiled once per worker (compiled again in every file, they were 5% of
 * an API file's CPU), and stopping the performance observers the file started once it ends.
 */
export default class SuiteEnvironment extends TestEnvironment {
  override async setup(): Promise<void> {
    await super.setup();
    this.global.runResponseValidators = () => (validators ??= new ResponseValidators(runDocument().components));
  }

  override async teardown(): Promise<void> {
    for (const observer of observers) observer.disconnect();
    observers.clear();
    await super.teardown();
  }
}
