import { AsyncResource } from 'node:async_hooks';

type Bind = (
  this: AsyncResource,
  fn: (...args: never[]) => unknown,
  thisArg?: unknown,
) => (...args: unknown[]) => unknown;

/** Where Node's own `bind` is kept once replaced: a registered symbol, the same for every copy of this module. */
const NODE_BIND = Symbol.for('account-dns-service.node-async-resource-bind');
const prototype = AsyncResource.prototype as unknown as { bind: unknown; [NODE_BIND]?: Bind };
/** Node's own, even where another copy of this module (a test file's) replaced it already. */
const nodeBind: Bind = prototype[NODE_BIND] ?? (prototype.bind as Bind);

/**
 * `AsyncResource.prototype.bind` without the deprecated `asyncResource` accessor (DEP0172)
 * Node 20 defines on every function it returns.
 *
 * Fastify 5.11 binds one function per request with a body (its content-type parser, for
 * the body's callback), and Node builds that accessor with two `util.deprecate` wrappers,
 * each a function whose prototype is set: ~12 us per request on this machine against
 * 0.04 us for the same call through `runInAsyncScope`, and garbage for the GC threads.
 * Under `bench:ddns` with API writes it was ~4 % of the main thread in the profile, and
 * taking it away made the main thread 0.85x and the GC threads 0.45x per update
 * (decision 0133). Fastify 5.12.8 calls `runInAsyncScope` itself (fastify/fastify#7012), but
 * @nestjs/platform-fastify pins 5.11.3, and 5.12.8 under an override measured slower on the
 * DDNS route (0133): this stands in until a Fastify release measures at least even.
 *
 * What a bound function does is Node's own: it calls `fn` through the resource's
 * `runInAsyncScope`, with `thisArg` or, when none was given, the call's `this`, and its
 * `length` is `fn`'s; a value that is not a function is refused by Node's code. Only the
 * accessor is missing, which nothing in this service or its dependencies reads (it warns
 * when read).
 */
function leanBind(this: AsyncResource, fn: (...args: never[]) => unknown, thisArg?: unknown) {
  if (typeof fn !== 'function') return nodeBind.call(this, fn, thisArg);
  // Built as Node builds it (so the same names: `bound`, `bound runInAsyncScope`).
  let bound: (...args: unknown[]) => unknown;
  if (thisArg === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const resource = this;
    bound = function (this: unknown, ...args: unknown[]) {
      return resource.runInAsyncScope(fn as (...a: unknown[]) => unknown, this, ...args);
    };
  } else {
    bound = this.runInAsyncScope.bind(this, fn as (...a: unknown[]) => unknown, thisArg) as typeof bound;
  }
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound;
}

/** Installs `leanBind` in place of Node's for the whole process (again: no change). */
export function useLeanAsyncResourceBind(): void {
  if (!prototype[NODE_BIND]) Object.defineProperty(prototype, NODE_BIND, { value: nodeBind });
  prototype.bind = leanBind;
}

/** Node's own `bind` back (for specs). */
export function restoreNodeAsyncResourceBind(): void {
  prototype.bind = nodeBind;
}
