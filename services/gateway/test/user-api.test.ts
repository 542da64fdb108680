// The user API's one edge (src/http/user-api.ts), through Fastify's inject: each kind of catalogued refusal has one
// HTTP status whichever route answers it, and anything else is hidden behind REMOTE_RELAY_INTERNAL.
import { AppError, type ErrorKind } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { callOwner } from '../src/adapters/http/user-api.ts';

const logger = createLogger({ name: 'user-api-test', level: 'silent' });

/** An app whose one route answers what `call` does, through callOwner. */
async function answer(call: () => Promise<unknown>) {
  const app = Fastify();
  app.get('/', async (_request, reply) => {
    const result = await callOwner(reply, logger, call);
    return result === undefined ? reply : { result };
  });
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

describe('callOwner', () => {
  it.each<[string, ErrorKind, number]>([
    ['REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 400],
    ['REMOTE_RELAY_AUTH', 'unauthenticated', 401],
    ['REMOTE_RELAY_FORBIDDEN', 'permission_denied', 403],
    ['REMOTE_RELAY_PERMISSION', 'permission_denied', 403],
    ['REMOTE_RELAY_NOT_FOUND', 'not_found', 404],
    ['REMOTE_RELAY_ARCHIVED', 'failed_precondition', 409],
    ['REMOTE_RELAY_BUSY', 'failed_precondition', 409],
    ['REMOTE_RELAY_QUESTION_LIMIT', 'resource_exhausted', 429],
    ['REMOTE_RELAY_UNSUPPORTED', 'unimplemented', 501],
    ['REMOTE_RELAY_OFFLINE', 'unavailable', 503],
  ])('answers %s (%s) with %i and its message', async (code, kind, status) => {
    expect(await answer(() => Promise.reject(new AppError(code, kind, `refused: ${code}`)))).toEqual({ status, body: { code, error: `refused: ${code}` } });
  });

  it('hides a plain error, and a code outside the catalogue, behind 500 REMOTE_RELAY_INTERNAL', async () => {
    const hidden = { status: 500, body: { code: 'REMOTE_RELAY_INTERNAL', error: 'internal error' } };
    expect(await answer(() => Promise.reject(new Error('db password=hunter2')))).toEqual(hidden);
    expect(await answer(() => Promise.reject(new AppError('SUBSCRIPTION_INVALID_EVENT', 'invalid_argument', 'secret detail')))).toEqual(hidden);
  });

  it('answers 503 when an owner did not answer, without its message', async () => {
    expect(await answer(() => Promise.reject(new AppError('UNAVAILABLE', 'unavailable', 'connect ECONNREFUSED 10.0.0.7:50051')))).toEqual({
      status: 503,
      body: { code: 'REMOTE_RELAY_INTERNAL', error: 'A service of this relay did not answer; try again in a moment.' },
    });
  });

  it('passes a result through', async () => {
    expect(await answer(async () => 42)).toEqual({ status: 200, body: { result: 42 } });
  });
});
