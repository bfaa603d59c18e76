import { applyDecorators } from '@nestjs/common';
import {
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import { MAX_DAYS } from '../domain/cursor';
import { ErrorBody } from './email-auth-api.schemas';
import { DEFAULT_LIMIT } from './report-query';

/** OpenAPI parameters and responses of the report endpoints, shared by the API and its dashboard mirrors. */
export const domainQuery = (required: boolean) =>
  ApiQuery({
    name: 'domain',
    required,
    description: required
      ? 'A domain the caller can see'
      : 'Only this domain (default: every domain the caller can see)',
    example: 'example.com',
  });
export const DaysQuery = () =>
  ApiQuery({
    name: 'days',
    required: false,
    description: 'How far back to look, in days (at most three years)',
    schema: { type: 'integer', minimum: 1, maximum: MAX_DAYS, default: 30 },
  });
export const PageQueries = () =>
  applyDecorators(
    ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' }),
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_LIMIT },
    }),
  );
export const ZoneParam = () =>
  ApiParam({
    name: 'zone',
    example: 'example.com',
    description: 'A zone of the account in its Email Authentication add-on',
  });
export const NotFound = (description: string) => ApiNotFoundResponse({ type: ErrorBody, description });

/** One report endpoint's documentation: summary, its parameters and the body it returns. */
export const ReportEndpoint = (
  summary: string,
  body: new (...args: never[]) => unknown,
  ...params: Array<MethodDecorator & ClassDecorator>
) => applyDecorators(ApiOperation({ summary }), ...params, ApiOkResponse({ type: body }));

/** What a report-row page adds: its ETag and the 304 a matching If-None-Match gets (gzip goes by Accept-Encoding, as HTTP has it). */
export const RowPageValidators = () =>
  applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'ETag of a copy of this page the client holds: 304 when it is still the page',
    }),
    ApiResponse({
      status: 304,
      description: 'Not Modified: the page is the one whose ETag If-None-Match named (no body)',
    }),
  );
