import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EmailAuthRead } from '../../auth/principal';
import { EmailAuthApiGuard } from './email-auth-api.guard';
import { ErrorBody } from './email-auth-api.schemas';

/**
 * What every controller under /api/v1/email-auth shares: email_auth:read keys only, the
 * API's guard (user agent, key, scope, tier, rate limit), and the OpenAPI description of
 * the headers and errors common to all its endpoints.
 */
export const EmailAuthApi = () =>
  applyDecorators(
    EmailAuthRead(),
    UseGuards(EmailAuthApiGuard),
    ApiTags('email-auth'),
    ApiBearerAuth(),
    ApiHeader({ name: 'User-Agent', required: true, description: 'Names the integration' }),
    ApiHeader({
      name: 'X-Request-Id',
      required: false,
      description: 'Echoed back (at most 128 printable characters); a UUID otherwise',
    }),
    ApiResponse({
      status: 400,
      type: ErrorBody,
      description: 'user_agent_required, or validation_failed naming the parameter',
    }),
    ApiResponse({ status: 401, type: ErrorBody, description: 'The API key is not valid or has expired.' }),
    ApiResponse({
      status: 403,
      type: ErrorBody,
      description:
        'This key does not have the email_auth:read scope. / API access needs the Email Authentication Enterprise tier.',
    }),
    ApiResponse({
      status: 429,
      type: ErrorBody,
      description: 'More than 60 requests a minute on this key; Retry-After says when to retry',
    }),
  );
