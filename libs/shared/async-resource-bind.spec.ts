import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { installCheapAsyncResourceBind } from './async-resource-bind';

describe('AsyncResource.bind without the deprecation wrappers (decision 0109)', () => {
  const original = AsyncResource.prototype.bind;
  beforeAll(() => installCheapAsyncResourceBind());
  afterAll(() => {
    AsyncResource.prototype.bind = original;
  });

  // (Another suite of the same jest worker may have installed it already: the prototype is the process's.)
  it('replaces the implementation that wraps DEP0172 getters, once', () => {
    expect(AsyncResource.prototype.bind.toString()).not.toContain('DEP0172');
    expect(installCheapAsyncResourceBind()).toBe(false);
  });

  it('runs the function in the resource’s async scope with the caller’s this and arguments', () => {
    const resource = new AsyncResource('spec');
    const seen: unknown[] = [];
    const bound = resource.bind(function (this: unknown, a: number, b: number) {
      seen.push(executionAsyncId(), this, a + b);
      return 'done';
    });
    const self = { me: 1 };
    expect(bound.call(self, 2, 3)).toBe('done');
    expect(seen).toEqual([resource.asyncId(), self, 5]);
    expect(bound.length).toBe(2);
    expect((bound as unknown as { asyncResource: AsyncResource }).asyncResource).toBe(resource);
  });

  it('binds this when given, as the static form does, and keeps the async context of the resource’s creation', () => {
    const storage = new AsyncLocalStorage<string>();
    const thisArg = { name: 't' };
    const bound = storage.run('at-bind', () =>
      AsyncResource.bind(
        function (this: unknown) {
          return [this, storage.getStore()];
        },
        'spec',
        thisArg,
      ),
    );
    expect(storage.getStore()).toBeUndefined();
    expect(bound()).toEqual([thisArg, 'at-bind']);
    storage.disable();
  });

  it('refuses what is not a function', () => {
    expect(() => new AsyncResource('spec').bind(42 as unknown as () => void)).toThrow('must be of type function');
  });
});
