import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { AppConfig } from '../shared/config';
import { AppError, forbidden, unauthorized } from '../shared/errors';
import { requestOrigin } from '../shared/http/request-context';
import { AuthGuard } from './auth.guard';
import type { Authenticator } from './authenticator';
import { AUTH_MODE, AuthMode, Principal } from './principal';

const KEY: Principal = { accountId: 7, via: 'api_key', keyId: 'k1', access: 'account', plan: 'elite' };
const SESSION: Principal = { accountId: 7, via: 'session', sessionId: 's1', access: 'account' };

/** A guard whose authenticator answers `principal` for any Bearer header, recording the key checks in order. */
function guardWith(principal: Principal, planAllows = true) {
  const calls: string[] = [];
  const authenticator = {
    fromBearer: (header: string | undefined) => {
      if (!header) throw unauthorized('Missing or invalid credentials');
      calls.push('verify');
      return Promise.resolve(principal);
    },
    fromSessionToken: () => Promise.resolve(SESSION),
    assertAccountKeyAllowed: () => {
      calls.push('plan');
      return planAllows ? Promise.resolve() : Promise.reject(forbidden('plan_required', 'no keys on this plan'));
    },
    recordUse: () => {
      calls.push('use');
      return Promise.resolve();
    },
  } as unknown as Authenticator;
  const guard = new AuthGuard(new Reflector(), authenticator, { adminToken: undefined } as unknown as AppConfig);
  return { guard, calls };
}

/** A request to a route of the given mode (as `@Public()`, `@SessionOnly()`… set it). */
function contextFor(mode: AuthMode | undefined, headers: Record<string, string> = { authorization: 'Bearer ak_x' }) {
  class Routes {
    handler() {}
  }
  if (mode)
    SetMetadata(AUTH_MODE, mode)(
      Routes.prototype,
      'handler',
      Object.getOwnPropertyDescriptor(Routes.prototype, 'handler')!,
    );
  const request: { method: string; headers: Record<string, string>; principal?: Principal; origin?: object } = {
    method: 'PUT',
    headers,
    origin: { correlationId: 'req-1' },
  };
  return { request, context: new ExecutionContextHost([request, {}, undefined], Routes, Routes.prototype.handler) };
}

/** As Nest's guard consumer calls a guard: inside an async function, so a throw is a rejection. */
const activate = async (guard: AuthGuard, context: ExecutionContextHost) => guard.canActivate(context);

const refusal = (guard: AuthGuard, context: ExecutionContextHost) =>
  activate(guard, context).then(
    () => {
      throw new Error('admitted');
    },
    (e: AppError) => ({ status: e.status, code: e.code }),
  );

describe('AuthGuard', () => {
  it('lets public and email-auth routes through at once (a boolean, no promise)', () => {
    const { guard, calls } = guardWith(KEY);
    expect(guard.canActivate(contextFor('public', {}).context)).toBe(true);
    expect(guard.canActivate(contextFor('email_auth', {}).context)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('admits an account key after its plan check, records its use last, and sets the actor', async () => {
    const { guard, calls } = guardWith(KEY);
    const { request, context } = contextFor(undefined);
    await expect(activate(guard, context)).resolves.toBe(true);
    expect(calls).toEqual(['verify', 'plan', 'use']);
    expect(request.principal).toBe(KEY);
    expect(requestOrigin(request)).toEqual({ correlationId: 'req-1', actor: 'key:k1' });
  });

  it('admits a session without key checks', async () => {
    const { guard, calls } = guardWith(SESSION);
    const { request, context } = contextFor('session');
    await expect(activate(guard, context)).resolves.toBe(true);
    expect(calls).toEqual(['verify']);
    expect(requestOrigin(request).actor).toBe('user:7');
  });

  it('refuses without recording a use: no credentials, a read-only key, a key on a session-only route, a plan without keys', async () => {
    const noHeader = guardWith(KEY);
    expect(await refusal(noHeader.guard, contextFor(undefined, {}).context)).toEqual({
      status: 401,
      code: 'unauthorized',
    });

    const readOnly = guardWith({ ...KEY, access: 'email_auth:read' });
    expect(await refusal(readOnly.guard, contextFor(undefined).context)).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });

    const sessionOnly = guardWith(KEY);
    expect(await refusal(sessionOnly.guard, contextFor('session').context)).toEqual({
      status: 403,
      code: 'session_required',
    });

    const plan = guardWith(KEY, false);
    const { request, context } = contextFor(undefined);
    expect(await refusal(plan.guard, context)).toEqual({ status: 403, code: 'plan_required' });
    expect(request.principal).toBeUndefined();

    for (const { calls } of [noHeader, readOnly, sessionOnly, plan]) expect(calls).not.toContain('use');
  });

  it('answers 404 on admin routes when no operator token is configured', async () => {
    const { guard } = guardWith(KEY);
    expect(await refusal(guard, contextFor('admin').context)).toEqual({ status: 404, code: 'not_found' });
  });
});
