// A paired relay's call is refused the moment the user who paired it is removed (removed-users.ts): the relay token
// still known to the pairing service answers 401 REMOTE_RELAY_AUTH at /relay/v1, before the pairing service has
// taken the removal; another user's pairing goes on working.
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { refusingRemovedUsers } from '../src/adapters/grpc/removed-users.ts';
import { buildApp } from '../src/adapters/http/build-app.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../src/app/ports.ts';

const users = new Set(['u-ada', 'u-bob']);
const pairings: Record<string, { relayName: string; userId: string }> = {
  rly_r_bob: { relayName: 'far', userId: 'u-bob' },
  rly_r_ada: { relayName: 'lab', userId: 'u-ada' },
};

const sessions = {
  async listUsers() {
    return { users: [...users].map((id) => ({ id, name: id, role: 1, createdAt: new Date() })) };
  },
} as unknown as SessionClient;
const pairing = {
  async authenticateRelay({ token }: { token: string }) {
    const found = pairings[token];
    if (found === undefined) throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'unknown relay token');
    return { ...found, acceptPrompts: true, level: 4 };
  },
} as unknown as PairingClient;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  users.add('u-bob');
});

function start(): FastifyInstance {
  app = buildApp({
    relayName: 'desk',
    publicUrl: 'https://desk.example.com',
    openUrlBase: undefined,
    sessions,
    pairing: refusingRemovedUsers(pairing, sessions),
    questions: {} as QuestionClient,
    logger: createLogger({ name: 'removed-users-test', level: 'silent' }),
  });
  return app;
}

const hello = (token: string) => app!.inject({ method: 'GET', url: '/relay/v1/hello', headers: { authorization: `Bearer ${token}` } });

describe("a removed user's pairing", () => {
  it('answers as before while the user is there, and 401 REMOTE_RELAY_AUTH once they are removed', async () => {
    start();
    expect((await hello('rly_r_bob')).statusCode).toBe(200);
    users.delete('u-bob');
    const refused = await hello('rly_r_bob');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'REMOTE_RELAY_AUTH' });
    expect((await hello('rly_r_ada')).statusCode).toBe(200);
  });
});
