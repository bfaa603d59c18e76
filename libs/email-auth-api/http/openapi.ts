import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { EmailAuthApiModule } from '../email-auth-api.module';

export const EMAIL_AUTH_OPENAPI_PATH = '/api/v1/openapi.json';

/** The email-auth API's OpenAPI document, generated from the controller's decorators. */
export function emailAuthOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Email authentication read API')
    .setDescription(
      'Read-only email-authentication data under /api/v1/email-auth. Errors have the body {error: {code, message}}; 60 requests a minute per key.',
    )
    .setVersion('1')
    .setOpenAPIVersion('3.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key with the email_auth:read scope' })
    .build();
  return SwaggerModule.createDocument(app, config, { include: [EmailAuthApiModule] });
}

/** Serves the document (public, like the seed's {base_url}/api/v1/openapi.json); built once at start. */
export function installEmailAuthOpenApi(app: INestApplication): void {
  const document = emailAuthOpenApi(app);
  const body = JSON.stringify(document);
  (app.getHttpAdapter().getInstance() as FastifyInstance).get(EMAIL_AUTH_OPENAPI_PATH, (_req, reply) => {
    void reply.type('application/json').send(body);
  });
}
