import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { DnsAnalyticsModule } from '../dns-analytics/dns-analytics.module';
import { EmailAuthDashboardModule } from '../email-auth/email-auth-dashboard.module';

export const MANAGEMENT_OPENAPI_PATH = '/openapi.json';

/**
 * The management API's OpenAPI document (contract §14: endpoints added for the dashboard
 * are described here), generated from the controllers' decorators. It covers the modules
 * listed below; a module whose routes are decorated joins by being added to the list.
 */
export function managementOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Account DNS Service management API')
    .setDescription('Management endpoints (contract §1: JSON, snake_case, errors as {error: {code, message}}). Authenticated by a session (Bearer token or the dashboard cookie with its CSRF header) or an account API key.')
    .setVersion('1')
    .setOpenAPIVersion('3.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A session token or an account API key (ak_…)' })
    .build();
  return SwaggerModule.createDocument(app, config, { include: [DnsAnalyticsModule, EmailAuthDashboardModule] });
}

/** Serves the document (public); built once at start. */
export function installManagementOpenApi(app: INestApplication): void {
  const body = JSON.stringify(managementOpenApi(app));
  (app.getHttpAdapter().getInstance() as FastifyInstance).get(MANAGEMENT_OPENAPI_PATH, (_req, reply) => {
    void reply.type('application/json').send(body);
  });
}
