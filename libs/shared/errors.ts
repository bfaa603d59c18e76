/**
 * Domain and application errors carry the contract's error shape
 * (`{error: {code, message}}`) and their HTTP status, so deciders can refuse a
 * command without knowing about HTTP and the HTTP layer needs no mapping table.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

export const badRequest = (code: string, message: string) => new AppError(400, code, message);
export const validationFailed = (message: string) => new AppError(400, 'validation_failed', message);
export const unauthorized = (message = 'Authentication required', code = 'unauthorized') =>
  new AppError(401, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
export const notFound = (message = 'Not found', code = 'not_found') => new AppError(404, code, message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const tooManyRequests = (code: string, message: string, retryAfterSeconds: number) =>
  new AppError(429, code, message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
