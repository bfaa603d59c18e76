import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { restoreNodeAsyncResourceBind, useLeanAsyncResourceBind } from './async-resource-bind';

/** `resource.bind(fn, thisArg)`: Node's second parameter, which @types/node leaves out. */
const bindWithThis = <F extends (...args: never[]) => unknown>(resource: AsyncResource, fn: F, thisArg: unknown): F =>
  (resource.bind as unknown as (fn: F, thisArg: unknown) => F).call(resource, fn, thisArg);

describe('lean AsyncResource.bind', () => {
  beforeAll(() => useLeanAsyncResourceBind());
  afterAll(() => restoreNodeAsyncResourceBind());

  it('runs the bound function in the resource’s async scope, as Node’s bind does', () => {
    const storage = new AsyncLocalStorage<string>();
    const { resource, bound } = storage.run('request-1', () => {
      const r = new AsyncResource('content-type-parser:run');
      return { resource: r, bound: r.bind((a: number, b: number) => [storage.getStore(), executionAsyncId(), a + b]) };
    });
    expect(storage.run('elsewhere', () => bound(2, 3))).toEqual(['request-1', resource.asyncId(), 5]);
    expect(bound(1, 1)).toEqual(['request-1', resource.asyncId(), 2]);
  });

  it('keeps this, arguments and length; only the deprecated accessor is gone', () => {
    const resource = new AsyncResource('test');
    function fn(this: unknown, a: unknown, b: unknown) {
      return { self: this, args: [a, b] };
    }
    const owner = { name: 'owner' };
    const callsThis = resource.bind(fn);
    expect(callsThis.call(owner, 1, 2)).toEqual({ self: owner, args: [1, 2] });
    expect(bindWithThis(resource, fn, owner).call({ other: true }, 3, 4)).toEqual({ self: owner, args: [3, 4] });
    expect(callsThis.length).toBe(2);
    expect('asyncResource' in callsThis).toBe(false);
    // The static helper goes through the prototype's bind.
    expect(AsyncResource.bind((x: number) => x * 2)(21)).toBe(42);
  });

  it('refuses what is not a function with Node’s own error', () => {
    const resource = new AsyncResource('test');
    expect(() => resource.bind(42 as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('is what Node’s own bind was, minus the accessor', () => {
    restoreNodeAsyncResourceBind();
    const fn = (a: number) => a + 1;
    const nodeBound = [new AsyncResource('test').bind(fn), bindWithThis(new AsyncResource('test'), fn, {})];
    useLeanAsyncResourceBind();
    const leanBound = [new AsyncResource('test').bind(fn), bindWithThis(new AsyncResource('test'), fn, {})];
    for (const [i, node] of nodeBound.entries()) {
      const lean = leanBound[i];
      expect(Object.keys(node)).toEqual(['asyncResource']);
      expect(Object.keys(lean)).toEqual([]);
      expect([lean(1), lean.length, lean.name]).toEqual([node(1), node.length, node.name]);
    }
  });
});
