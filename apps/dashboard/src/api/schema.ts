/**
 * The management API's shapes, generated from the service's /openapi.json
 * (`npm run gen:api-types` writes generated/management-api.d.ts; test/management-openapi.e2e-spec.ts
 * fails when it is stale). Screens name server shapes through these, so a server change that
 * breaks a screen fails the dashboard's typecheck in `npm run build`.
 */
import type { components, operations } from './generated/management-api';

/** A named schema of the document (`components.schemas`). */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** The JSON body operation `O` (`Controller_method`, as in /openapi.json) answers with status `S`. */
export type Body<O extends keyof operations, S extends number = 200> = operations[O]['responses'] extends {
  [K in S]: { content: { 'application/json': infer B } };
}
  ? B
  : never;
