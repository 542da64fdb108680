/**
 * Users and tokens against a real database: one first admin and unique names even when users are created at
 * once (the users lock), removing a user (their tokens refused at once, their sessions archived, the last admin
 * and oneself refused), and rotating or revoking a user's and a session's token.
 */
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@relay/errors';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { nodeCrypto } from '../src/adapters/crypto/node-crypto.ts';
import { authenticate } from '../src/app/users/authenticate.ts';
import { createExternalSession } from '../src/app/sessions/create-external-session.ts';
import { createUser } from '../src/app/users/create-user.ts';
import { removeUser } from '../src/app/users/remove-user.ts';
import { rotateSessionToken, rotateUserToken } from '../src/app/users/rotate-token.ts';
import { createSignInLink, redeemSignInLink } from '../src/app/users/sign-in-links.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaSessionStore } from '../src/adapters/store/prisma-session-store.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-02T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let deps: { store: PrismaSessionStore; tokens: PgTokenReads; ids: typeof nodeCrypto; secrets: typeof nodeCrypto; hasher: typeof nodeCrypto };

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  deps = { store: new PrismaSessionStore(prisma, API_MESSAGES), tokens: new PgTokenReads(pool), ids: nodeCrypto, secrets: nodeCrypto, hasher: nodeCrypto };
  // As main does before the service serves: Authenticate reads them along.
  await deps.store.seedRelaySettings({ agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 30, taskQuietMinutes: 10 });
});

beforeEach(async () => {
  await prisma.$executeRawUnsafe('TRUNCATE users, sessions, api_tokens, sign_in_links, outbox CASCADE');
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

const callerOf = async (token: string) => (await authenticate(deps, token, new Date())).caller;

describe('creating users', () => {
  it('makes exactly one admin when the first users are created at once', async () => {
    const created = await Promise.all(['Ada', 'Bob', 'Cy', 'Dee', 'Eve'].map((name) => createUser(deps, { name }, NOW)));
    expect(created.filter(({ user }) => user.role === 'admin')).toHaveLength(1);
    expect(await prisma.user.count({ where: { role: 'admin' } })).toBe(1);
  });

  it('refuses a name taken, case aside, with REMOTE_RELAY_USER_EXISTS, also when both are created at once', async () => {
    await createUser(deps, { name: 'Ada' }, NOW);
    expect(await codeOf(createUser(deps, { name: ' ADA ' }, NOW))).toBe('REMOTE_RELAY_USER_EXISTS');
    const racing = await Promise.allSettled([createUser(deps, { name: 'Bob' }, NOW), createUser(deps, { name: 'bob' }, NOW)]);
    expect(racing.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await prisma.user.count()).toBe(2);
  });
});

describe('removing a user', () => {
  it("refuses their own and their sessions' tokens at once, archives their sessions and frees their name", async () => {
    const admin = await createUser(deps, { name: 'Ada' }, NOW);
    const bob = await createUser(deps, { name: 'Bob' }, NOW);
    const { session, token: sessionToken } = await createExternalSession(deps, { userId: bob.user.id, title: 'Bob at work' }, NOW);
    expect(await callerOf(sessionToken)).toMatchObject({ userId: bob.user.id, sessionId: session.id });

    expect(await removeUser(deps, { userId: bob.user.id, callerUserId: admin.user.id }, NOW)).toEqual({ user: bob.user, archivedSessions: 1 });
    expect(await codeOf(callerOf(bob.token))).toBe('UNAUTHENTICATED');
    expect(await codeOf(callerOf(sessionToken))).toBe('UNAUTHENTICATED');
    expect(await prisma.session.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({ archived: true, title: 'Bob at work' });
    expect(await prisma.outboxMessage.count({ where: { subject: 'relay.session.v1.archived' } })).toBe(1);
    // What other services keep acting for Bob (pairings, codes, schedules) ends on this, once: its id is the removal's.
    const removal = await prisma.outboxMessage.findMany({ where: { subject: 'relay.session.v1.user_removed' } });
    expect(removal).toEqual([
      expect.objectContaining({
        id: `user_removed:${bob.user.id}`,
        payload: { eventId: `user_removed:${bob.user.id}`, occurredAt: NOW.toISOString(), userId: bob.user.id },
      }),
    ]);
    expect((await deps.store.listUsers()).map((user) => user.name)).toEqual(['Ada']);
    expect(await callerOf(admin.token)).toMatchObject({ userId: admin.user.id });

    const again = await createUser(deps, { name: 'bob' }, NOW);
    expect(again.user.id).not.toBe(bob.user.id);
    expect(await codeOf(removeUser(deps, { userId: bob.user.id, callerUserId: admin.user.id }, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it('refuses removing yourself and the last admin, and removes nothing', async () => {
    const admin = await createUser(deps, { name: 'Ada' }, NOW);
    const member = await createUser(deps, { name: 'Bob' }, NOW);
    expect(await codeOf(removeUser(deps, { userId: admin.user.id, callerUserId: admin.user.id }, NOW))).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(await codeOf(removeUser(deps, { userId: admin.user.id, callerUserId: member.user.id }, NOW))).toBe('REMOTE_RELAY_LAST_ADMIN');
    expect(await callerOf(admin.token)).toMatchObject({ userId: admin.user.id, role: 'admin' });
  });

  it('leaves one admin when two admins remove each other at once', async () => {
    const ada = await createUser(deps, { name: 'Ada' }, NOW);
    const cy = await createUser(deps, { name: 'Cy', role: 'admin' }, NOW);
    const outcomes = await Promise.allSettled([
      removeUser(deps, { userId: ada.user.id, callerUserId: cy.user.id }, NOW),
      removeUser(deps, { userId: cy.user.id, callerUserId: ada.user.id }, NOW),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await deps.store.listUsers()).filter((user) => user.role === 'admin')).toHaveLength(1);
  });
});

describe('rotating and revoking tokens', () => {
  it("rotates a user's token (the old one refused at once) and revokes it, leaving other tokens alone", async () => {
    const ada = await createUser(deps, { name: 'Ada' }, NOW);
    const bob = await createUser(deps, { name: 'Bob' }, NOW);
    const { token: sessionToken } = await createExternalSession(deps, { userId: ada.user.id, title: 'Ada at work' }, NOW);

    const { token } = await rotateUserToken(deps, { userId: ada.user.id, revoke: false }, NOW);
    expect(token).toMatch(/^rly_u_/);
    expect(await codeOf(callerOf(ada.token))).toBe('UNAUTHENTICATED');
    expect(await callerOf(token)).toMatchObject({ userId: ada.user.id });
    expect(await callerOf(sessionToken)).toMatchObject({ userId: ada.user.id });

    expect(await rotateUserToken(deps, { userId: ada.user.id, revoke: true }, NOW)).toEqual({ token: '' });
    expect(await codeOf(callerOf(token))).toBe('UNAUTHENTICATED');
    expect(await callerOf(bob.token)).toMatchObject({ userId: bob.user.id });
    expect(await codeOf(rotateUserToken(deps, { userId: 'nobody', revoke: false }, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it("rotates and revokes a session's token for its user only", async () => {
    const ada = await createUser(deps, { name: 'Ada' }, NOW);
    const bob = await createUser(deps, { name: 'Bob' }, NOW);
    const { session, token: old } = await createExternalSession(deps, { userId: ada.user.id, title: 'Ada at work' }, NOW);

    expect(await codeOf(rotateSessionToken(deps, { userId: bob.user.id, sessionId: session.id, revoke: false }, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await callerOf(old)).toMatchObject({ sessionId: session.id });

    const { token } = await rotateSessionToken(deps, { userId: ada.user.id, sessionId: session.id, revoke: false }, NOW);
    expect(token).toMatch(/^rly_s_/);
    expect(await codeOf(callerOf(old))).toBe('UNAUTHENTICATED');
    expect(await callerOf(token)).toMatchObject({ userId: ada.user.id, sessionId: session.id });

    await rotateSessionToken(deps, { userId: ada.user.id, sessionId: session.id, revoke: true }, NOW);
    expect(await codeOf(callerOf(token))).toBe('UNAUTHENTICATED');
    expect(await callerOf(ada.token)).toMatchObject({ userId: ada.user.id });
  });
});

describe('sign-in links', () => {
  it('two redeeming one link at once: one signs in, the other is refused, and only the hash is stored', async () => {
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const { link } = await createSignInLink(deps, user.id, NOW);
    expect(await prisma.signInLink.findMany({ select: { linkHash: true } })).toEqual([{ linkHash: nodeCrypto.hash(link) }]);
    const outcomes = await Promise.allSettled([redeemSignInLink(deps, link, NOW), redeemSignInLink(deps, link, NOW)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const signedIn = outcomes.find((outcome) => outcome.status === 'fulfilled')!.value;
    expect((await authenticate(deps, signedIn.token, NOW)).caller).toEqual({ userId: user.id, role: 'admin' });
    expect(await prisma.signInLink.count()).toBe(0);
    expect((await prisma.apiToken.findUnique({ where: { tokenHash: nodeCrypto.hash(signedIn.token) } }))?.expiresAt).toEqual(signedIn.expiresAt);
  });

  it("a removed user's links are gone with their tokens", async () => {
    const { user: admin } = await createUser(deps, { name: 'Ada' }, NOW);
    const { user } = await createUser(deps, { name: 'Bo' }, NOW);
    const { link } = await createSignInLink(deps, user.id, NOW);
    await removeUser(deps, { userId: user.id, callerUserId: admin.id }, NOW);
    expect(await codeOf(redeemSignInLink(deps, link, NOW))).toBe('UNAUTHENTICATED');
  });
});
