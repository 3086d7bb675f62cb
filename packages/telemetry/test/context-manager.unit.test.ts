import { EventEmitter, once } from 'node:events';
import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContext } from '../src/context-manager';

const KEY = createContextKey('test');
const named = (name: string) => ROOT_CONTEXT.setValue(KEY, name);
const nameOf = (context: Context) => String(context.getValue(KEY) ?? 'root');

const manager = new AsyncLocalStorageContext();
const activeName = () => nameOf(manager.active());
/** The next turn of the event loop, outside any context this test entered. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AsyncLocalStorageContext', () => {
  it('runs a function in a context, across its awaits, and restores the one before', async () => {
    const seen: string[] = [];
    const result = await manager.with(named('outer'), async () => {
      seen.push(activeName());
      await manager.with(named('inner'), async () => {
        await nextTurn();
        seen.push(activeName());
      });
      await nextTurn();
      seen.push(activeName());
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual(['outer', 'inner', 'outer']);
    expect(activeName()).toBe('root');
  });

  it('passes this and the arguments through, in the context given even when it is already active', () => {
    const context = named('same');
    const target = { factor: 3 };
    const times = function (this: typeof target, a: number, b: number) {
      return `${activeName()} ${this.factor * a * b}`;
    };
    expect(manager.with(context, times, target, 2, 5)).toBe('same 30');
    expect(manager.with(context, () => manager.with(context, times, target, 1, 1))).toBe('same 3');
  });

  it('binds a function to its context whoever calls it, keeping its arity', () => {
    const bound = manager.bind(named('bound'), function (this: { who: string }, _a: unknown, _b: unknown, _c: unknown, _d: unknown) {
      return `${this.who} in ${activeName()}`;
    });
    expect(bound.length).toBe(4);
    expect(manager.with(named('caller'), () => bound.call({ who: 'me' }, 1, 2, 3, 4))).toBe('me in bound');
  });

  it("runs an emitter's listeners, added before or after binding it, in its first context, wherever it emits from", async () => {
    const emitter = new EventEmitter();
    const seen: string[] = [];
    emitter.on('data', () => seen.push(`before ${activeName()}`));
    manager.bind(named('request'), emitter);
    manager.bind(named('later'), emitter);
    const after = () => seen.push(`after ${activeName()}`);
    emitter.on('data', after);
    emitter.once('data', () => seen.push(`once ${activeName()}`));

    await nextTurn();
    expect(emitter.emit('data')).toBe(true);
    emitter.removeListener('data', after);
    manager.with(named('elsewhere'), () => emitter.emit('data'));
    expect(seen).toEqual(['before request', 'after request', 'once request', 'before request']);

    const ended = once(emitter, 'end');
    setImmediate(() => emitter.emit('end', 'value'));
    expect(await ended).toEqual(['value']);
  });

  it('leaves what is neither a function nor an emitter as it is', () => {
    const value = { plain: true };
    expect(manager.bind(named('any'), value)).toBe(value);
  });
});
