import { AsyncResource } from 'node:async_hooks';

type Bind = <F extends (...args: any[]) => any>(this: AsyncResource, fn: F, thisArg?: unknown) => F;

/**
 * Node 20's `AsyncResource.prototype.bind` wraps a getter and a setter in `util.deprecate`
 * (DEP0172, the bound function's `asyncResource` property) on every call: ~8 µs a bind
 * where the binding itself takes under 1. Fastify binds once per request with a body (its
 * content-type parser's callback) and Nest once per interceptor layer, so every JSON write
 * paid it (2.9 % of the main thread under `bench:ddns` with `DDNS_BENCH_WRITE=api`,
 * decision 0109). This is the same binding — the function runs in the resource's async
 * scope, with the same `this`, arguments, `length` and `asyncResource` — without the
 * deprecation wrappers (nothing here reads the property; reading it no longer warns).
 * Installed only over the implementation that has them.
 */
export function installCheapAsyncResourceBind(): boolean {
  const proto = AsyncResource.prototype as unknown as { bind: Bind };
  if (!proto.bind.toString().includes('DEP0172')) return false;
  proto.bind = function bind(this: AsyncResource, fn, thisArg) {
    return bindTo(this, fn, thisArg);
  };
  return true;
}

function bindTo<F extends (...args: any[]) => any>(resource: AsyncResource, fn: F, thisArg: unknown): F {
  if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : resource.runInAsyncScope.bind(resource, fn, thisArg);
  Object.defineProperties(bound, {
    length: { configurable: true, enumerable: false, writable: false, value: fn.length },
    asyncResource: { configurable: true, enumerable: true, writable: true, value: resource },
  });
  return bound as F;
}
