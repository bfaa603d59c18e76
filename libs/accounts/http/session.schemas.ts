import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Login answers (contract §2, §14) for /openapi.json, as `SessionIssuer` (a bearer session),
 * `setBrowserSession` (auth/browser-session.ts: the cookie transport, the token only in an HttpOnly
 * cookie) and the second-factor gate (a challenge) build them. test/management-openapi.e2e-spec.ts
 * validates real answers of each kind against them; the dashboard's login screen is typed from them.
 */
const expiresIn = { type: 'integer', description: 'seconds the session (or the challenge) lasts' } as const;

export const SESSION_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  BearerSession: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in'],
    properties: {
      access_token: { type: 'string', description: 'st_…: sent as `Authorization: Bearer`' },
      token_type: { type: 'string', enum: ['bearer'] },
      expires_in: expiresIn,
    },
  },
  CookieSession: {
    type: 'object',
    required: ['token_type', 'expires_in'],
    description: 'With `X-Session-Transport: cookie`: the token is in an HttpOnly cookie, never in the body',
    properties: { token_type: { type: 'string', enum: ['cookie'] }, expires_in: expiresIn },
  },
  LoginChallenge: {
    type: 'object',
    required: ['requires_2fa', 'login_token', 'expires_in'],
    description: 'Two-factor authentication is on: POST /auth/login/2fa with this token and a code',
    properties: {
      requires_2fa: { type: 'boolean', enum: [true] },
      login_token: { type: 'string' },
      expires_in: expiresIn,
    },
  },
  IssuedSession: {
    oneOf: [{ $ref: '#/components/schemas/BearerSession' }, { $ref: '#/components/schemas/CookieSession' }],
  },
  LoginAnswer: {
    oneOf: [
      { $ref: '#/components/schemas/BearerSession' },
      { $ref: '#/components/schemas/CookieSession' },
      { $ref: '#/components/schemas/LoginChallenge' },
    ],
  },
};

/** operationId → status → the schema of its body. */
export const SESSION_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  AccountsController_login: { '200': 'LoginAnswer' },
  LoginSecondStepController_complete: { '200': 'IssuedSession' },
};
