import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError } from '../errors';
import { Logger, LOGGER } from '../logger';

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  431: 'request_header_fields_too_large',
};

/** Turns anything thrown into the contract's error body `{error: {code, message}}`. */
export function toAppError(exception: unknown): AppError {
  if (exception instanceof AppError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : Array.isArray((response as { message?: unknown }).message)
          ? (response as { message: string[] }).message.join('; ')
          : String((response as { message?: unknown }).message ?? exception.message);
    if (status === 404) return new AppError(404, 'not_found', 'No such endpoint');
    // Nest raises body-parser failures (malformed JSON) as plain 400s.
    if (status === 400) return new AppError(400, 'validation_failed', `Malformed request: ${message}`);
    return new AppError(status, STATUS_CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request'), message);
  }
  const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode < 500) {
    const status = fastifyError.statusCode;
    if (status === 413) return new AppError(413, 'payload_too_large', 'Request body exceeds the 1 MiB limit');
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return new AppError(415, 'unsupported_media_type', 'Send the body as application/json');
    }
    if (status === 400) {
      return new AppError(
        400,
        'validation_failed',
        `Malformed request body: ${fastifyError.message ?? 'invalid JSON'}`,
      );
    }
    return new AppError(status, STATUS_CODES[status] ?? 'bad_request', fastifyError.message ?? 'Bad request');
  }
  return new AppError(500, 'internal_error', 'Internal server error');
}

export function sendError(reply: FastifyReply, error: AppError): void {
  void reply.status(error.status).headers(error.headers).type('application/json').send(error.toBody());
}

/** Answers with whatever was thrown, as the contract's error body; unexpected errors (500) are logged with the request id. */
export function answerError(
  reply: FastifyReply,
  exception: unknown,
  logger: Logger,
  requestId: string | undefined,
): void {
  const error = toAppError(exception);
  if (error.status >= 500) {
    logger.error('unhandled error', {
      request_id: requestId,
      error: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    });
  }
  sendError(reply, error);
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(http.getResponse<FastifyReply>(), exception, this.logger, http.getRequest<{ id?: string }>()?.id);
  }
}
