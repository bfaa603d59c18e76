import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  OperationObject,
  PathItemObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AUTH_MODE, AuthMode } from '../../libs/auth/principal';
import { DASHBOARD_CSP } from '../../libs/dashboard/web-front';
import { EmailAuthApiModule } from '../../libs/email-auth-api/email-auth-api.module';
import { OPERATION_RESPONSES, RESPONSE_SCHEMAS } from './management-responses';

export const MANAGEMENT_OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * The dashboard's strict policy (`libs/dashboard/web-front.ts`) with one relaxation, on
 * /docs only: Swagger UI inserts inline styles as it renders (a browser check shows them
 * blocked otherwise), so `style-src` allows 'unsafe-inline'. Scripts stay 'self' only:
 * the page is our own (`docsPage`), with no inline script, and the UI's init is a file.
 * Swagger UI draws its icons as data: URLs, which `img-src` already allows.
 */
export const DOCS_CSP = DASHBOARD_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

// class-transformer's `@Type` targets (nested DTOs) live in its storage, which it ships untyped at this path.
const { defaultMetadataStorage } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('class-transformer/cjs/storage') as typeof import('class-transformer/types/storage');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'snake_case error code', example: 'validation_failed' },
        message: { type: 'string', example: 'name: must be at most 64 characters' },
      },
    },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Errors every management operation may answer, by the authentication it takes (contract §1). */
function errorResponses(mode: AuthMode, hasInput: boolean, namesResource: boolean) {
  return {
    ...(hasInput
      ? {
          '400': errorResponse(
            'validation_failed: a parameter or body field is invalid (the message names it); 413 for bodies over 1 MiB',
          ),
        }
      : {}),
    ...(mode === 'public'
      ? {}
      : {
          '401': errorResponse(
            mode === 'admin'
              ? 'Admin endpoints answer 404 when ADMIN_TOKEN is unset, 401 on a wrong token'
              : 'unauthorized: missing or invalid credentials',
          ),
        }),
    ...(mode === 'public' || mode === 'admin'
      ? {}
      : { '403': errorResponse('insufficient_scope, plan_required, tier_required, addon_required or limit_reached') }),
    ...(namesResource || mode === 'admin'
      ? {
          '404': errorResponse(
            mode === 'admin'
              ? 'not_found: unknown resource, or ADMIN_TOKEN unset'
              : 'not_found: unknown resource, or another account’s',
          ),
        }
      : {}),
    '429': errorResponse('rate limited; Retry-After says when to retry'),
    '4XX': errorResponse('Any other refusal (409 on state conflicts), always in this shape'),
  };
}

/** `Controller_method` → the authentication the route takes (`@Public`, `@AdminOnly`, … from libs/auth). */
function authModes(app: INestApplication): Map<string, AuthMode> {
  const modes = new Map<string, AuthMode>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!type) continue;
      const classMode = Reflect.getMetadata(AUTH_MODE, type) as AuthMode | undefined;
      for (const method of Object.getOwnPropertyNames(type.prototype)) {
        if (method === 'constructor') continue;
        const handler = (type.prototype as Record<string, unknown>)[method];
        const mode =
          (typeof handler === 'function'
            ? (Reflect.getMetadata(AUTH_MODE, handler) as AuthMode | undefined)
            : undefined) ??
          classMode ??
          'account';
        modes.set(`${type.name}_${method}`, mode);
      }
    }
  }
  return modes;
}

/**
 * The management API's OpenAPI 3.1 document (everything outside `/api/v1/email-auth`,
 * which has its own at /api/v1/openapi.json), generated from the controllers. Request body
 * schemas come from the DTOs' class-validator rules (the same rules the validation pipe
 * enforces), security from each route's auth decorator, and every operation lists the
 * contract's error body.
 */
export function managementOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Account DNS Service management API')
    .setDescription(
      'Accounts, API keys, 2FA, DDNS hosts, zones, uptime, email authentication settings, reports intake, ' +
        'certificates, DNS analytics and operator endpoints. ' +
        'JSON with snake_case fields; every error has the body {error: {code, message}}.',
    )
    .setVersion('1')
    .setOpenAPIVersion('3.1.0')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'A session access token (POST /auth/login) or an account API key (ak_…)',
      },
      'bearer',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'ADMIN_TOKEN of the deployment' },
      'admin_token',
    )
    .build();
  const modules = [...app.get(ModulesContainer).values()]
    .map((m) => m.metatype)
    .filter((m) => m !== EmailAuthApiModule);
  const document = SwaggerModule.createDocument(app, config, {
    include: modules,
    operationIdFactory: (controller, method) => `${controller}_${method}`,
  });

  const dtoSchemas = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage,
  }) as Record<string, SchemaObject>;
  const schemas = (document.components ??= {}).schemas ?? (document.components.schemas = {});
  // A DTO the controllers name is described by its validation rules; nested DTOs they refer to come along.
  const wanted = Object.keys(schemas).filter((name) => dtoSchemas[name]);
  for (let i = 0; i < wanted.length; i++) {
    const name = wanted[i];
    schemas[name] = dtoSchemas[name];
    for (const ref of JSON.stringify(dtoSchemas[name]).match(/#\/components\/schemas\/\w+/g) ?? []) {
      const nested = ref.split('/').pop()!;
      if (dtoSchemas[nested] && !wanted.includes(nested)) wanted.push(nested);
    }
  }
  schemas.Error = ERROR_SCHEMA;
  Object.assign(schemas, RESPONSE_SCHEMAS);

  const modes = authModes(app);
  for (const [path, item] of Object.entries(document.paths as Record<string, PathItemObject>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (!op) continue;
      const mode = modes.get(op.operationId ?? '') ?? 'account';
      op.security = mode === 'public' ? [] : mode === 'admin' ? [{ admin_token: [] }] : [{ bearer: [] }];
      op.tags = op.tags?.length ? op.tags : [path.split('/')[1] || 'service'];
      op.responses = {
        ...errorResponses(mode, Boolean(op.requestBody || op.parameters?.length), path.includes('{')),
        ...op.responses,
      };
      for (const [status, schema] of Object.entries(OPERATION_RESPONSES[op.operationId ?? ''] ?? {})) {
        op.responses[status] = {
          description: (op.responses[status] as { description?: string } | undefined)?.description || 'OK',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
        };
      }
    }
  }
  return document;
}

const docsPage = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, ` +
  `initial-scale=1"><title>${title}</title>` +
  `<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css"><link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png"></head>` +
  `<body><div id="swagger-ui"></div><script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>` +
  `<script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script><script src="${DOCS_PATH}/swagger-ui-init.js"></script></body></html>`;

const docsInit = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(MANAGEMENT_OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`;

const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * Serves the document at /openapi.json and Swagger UI over it at /docs. The UI's files
 * come from swagger-ui-dist (the package @nestjs/swagger's own UI uses), served from
 * memory: SwaggerModule.setup would serve them through @fastify/static, whose release
 * platform-fastify 11 accepts needs an ESM-only dependency the test runner cannot load.
 */
export function installManagementOpenApi(app: INestApplication): void {
  const body = JSON.stringify(managementOpenApi(app));
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  fastify.get(MANAGEMENT_OPENAPI_PATH, (_req, reply) => {
    void reply.type('application/json').send(body);
  });
  const page = docsPage('Account DNS Service API');
  const html = (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .header('Content-Security-Policy', DOCS_CSP)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(page);
  fastify.get(DOCS_PATH, html);
  fastify.get(`${DOCS_PATH}/index.html`, html);
  fastify.get(`${DOCS_PATH}/swagger-ui-init.js`, (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(docsInit),
  );
  for (const [file, type] of Object.entries(DOCS_ASSETS)) {
    const content = readFileSync(join(dirname(require.resolve('swagger-ui-dist/package.json')), file));
    fastify.get(`${DOCS_PATH}/${file}`, (_req, reply) =>
      reply.header('Cache-Control', 'public, max-age=86400').type(type).send(content),
    );
  }
}
