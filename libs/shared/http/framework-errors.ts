import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors';
import { sendError } from './error.filter';

/**
 * The longest path parameter the router matches (Fastify's default is 100): every name
 * the API accepts is at most 253 octets, and may come percent-encoded (three characters
 * an octet). Longer ones are 414.
 */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Refusals Fastify decides before any route or hook runs (a parameter over
 * MAX_PARAM_LENGTH, malformed percent-encoding in the path), in the contract's error
 * shape with the request id the hooks would have set (contract §1, §16).
 */
export function answerFrameworkError(
  error: { code?: string; message?: string },
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  void reply.header('X-Request-Id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(
      reply,
      new AppError(414, 'uri_too_long', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`),
    );
  } else if (error.code === 'FST_ERR_BAD_URL') {
    sendError(reply, new AppError(400, 'malformed_url', 'The request path is not valid percent-encoded UTF-8'));
  } else {
    sendError(reply, new AppError(400, 'bad_request', 'The request could not be routed'));
  }
}

/** What the HTTP parser's refusals are answered with. */
function clientErrorAnswer(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(431, 'request_header_fields_too_large', 'The request line and headers exceed 16 KiB');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError(408, 'request_timeout', 'The request was not received in time');
    default:
      return new AppError(400, 'bad_request', 'Malformed HTTP request (request line or headers)');
  }
}

/**
 * Node's HTTP parser refuses a request before Fastify sees one (headers over the size
 * limit, a NUL or other invalid character in a header, a broken request line): the answer
 * is written on the socket as Node would, in the contract's error shape, then the
 * connection is closed (nothing after a broken request can be trusted).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const answer = clientErrorAnswer(error.code);
    const body = JSON.stringify(answer.toBody());
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
