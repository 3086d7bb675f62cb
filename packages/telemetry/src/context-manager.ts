import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

const BOUND_CONTEXT = Symbol('worktrack.boundContext');
const UNBOUND_EMIT = Symbol('worktrack.unboundEmit');

type BoundEmitter = EventEmitter & { [BOUND_CONTEXT]?: Context; [UNBOUND_EMIT]?: EventEmitter['emit'] };
type AnyFunction = (...args: never[]) => unknown;

/** The process's OpenTelemetry context: one storage, as the SDK registers one manager. */
const storage = new AsyncLocalStorage<Context>();

/** Runs `fn` in `context`; in the context already active, without entering it again. */
function runIn<F extends AnyFunction>(context: Context, fn: F, thisArg: unknown, args: Parameters<F>): ReturnType<F> {
  if (storage.getStore() === context) return Reflect.apply(fn, thisArg, args) as ReturnType<F>;
  return storage.run(context, Reflect.apply, fn, thisArg, args) as ReturnType<F>;
}

/** A bound emitter's `emit`: its listeners run in the context it was bound to. */
function emitInBoundContext(this: BoundEmitter, ...args: Parameters<EventEmitter['emit']>): boolean {
  return runIn(this[BOUND_CONTEXT]!, this[UNBOUND_EMIT]!, this, args);
}

/**
 * OpenTelemetry's context on an `AsyncLocalStorage`, as its own `AsyncLocalStorageContextManager`
 * keeps it, but lighter where every traced request pays (docs/performance.md#tracing-overhead): an
 * emitter (each incoming request and its response) gets one `emit` that runs its listeners in the
 * bound context, instead of eight patched listener methods and a map of wrapped listeners per event
 * name; and running in the context already active enters no new one.
 */
export class AsyncLocalStorageContext implements ContextManager {
  active(): Context {
    return storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return runIn(context, fn as AnyFunction, thisArg, args as never) as ReturnType<F>;
  }

  bind<T>(context: Context, target: T): T {
    if (target instanceof EventEmitter) return bindEmitter(context, target) as T;
    if (typeof target === 'function') return bindFunction(context, target as T & AnyFunction);
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    storage.disable();
    return this;
  }
}

/** `target` run in `context`. (Returned unnamed: tsx would give a named one its name at every call.) */
function inContext<F extends AnyFunction>(context: Context, target: F) {
  return function (this: unknown, ...args: Parameters<F>) {
    return runIn(context, target, this, args);
  };
}

function bindFunction<F extends AnyFunction>(context: Context, target: F): F {
  const bound = inContext(context, target);
  // Some callers tell callbacks apart by their arity (Express's error handlers take four).
  if (target.length > 0) Object.defineProperty(bound, 'length', { value: target.length });
  return bound as unknown as F;
}

/** The first context an emitter is bound to stays its own, as with OpenTelemetry's manager. */
function bindEmitter(context: Context, emitter: BoundEmitter): EventEmitter {
  if (emitter[BOUND_CONTEXT] !== undefined) return emitter;
  emitter[BOUND_CONTEXT] = context;
  emitter[UNBOUND_EMIT] = emitter.emit;
  emitter.emit = emitInBoundContext;
  return emitter;
}
