/**
 * Sign-in grants against a real database: a code redeemed twice at once is issued once and the other attempt, a
 * replay, revokes the grant; a refresh token rotated twice at once is issued once; expiries are read at an explicit
 * `now`; the access token is the grant's session's token, with its expiry, for Authenticate.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '@relay/errors';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { nodeCrypto } from '../src/adapters/crypto/node-crypto.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { PrismaOAuthStore } from '../src/adapters/store/prisma-oauth-store.ts';
import { PrismaSessionStore } from '../src/adapters/store/prisma-session-store.ts';
import { grantAuthorization, redeemAuthorizationCode, refreshGrant, type OAuthDeps } from '../src/app/oauth/oauth-grants.ts';
import { authenticate } from '../src/app/users/authenticate.ts';
import { createUser } from '../src/app/users/create-user.ts';
import { ACCESS_TOKEN_MINUTES, CODE_MINUTES } from '../src/domain/oauth/grants.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const CLIENT = 'https://client.example/meta.json';
const REDIRECT = 'http://127.0.0.1:5555/callback';
const RESOURCE = 'https://relay.example/mcp';
const VERIFIER = 'a-verifier-of-forty-three-characters-at-least-0123';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let database: TestDatabase;
let prisma: PrismaClient;
let deps: OAuthDeps & { tokens: PgTokenReads };
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const store = new PrismaSessionStore(prisma, API_MESSAGES);
  deps = {
    store,
    oauth: new PrismaOAuthStore(prisma, API_MESSAGES),
    tokens: new PgTokenReads(pool),
    ids: nodeCrypto,
    secrets: nodeCrypto,
    hasher: nodeCrypto,
    pkce: nodeCrypto,
  };
  await store.seedRelaySettings({ agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 30, taskQuietMinutes: 10 });
});

beforeEach(async () => {
  await prisma.$executeRawUnsafe('TRUNCATE users, sessions, api_tokens, oauth_grants, oauth_refresh_tokens, outbox CASCADE');
  userId = (await createUser(deps, { name: 'ada', role: 'admin' }, NOW)).user.id;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const grant = () =>
  grantAuthorization(
    deps,
    { userId, clientId: CLIENT, redirectUri: REDIRECT, codeChallenge: CHALLENGE, resource: RESOURCE, title: 'Claude Code on laptop' },
    NOW,
  );
const redeem = (code: string, now = NOW) =>
  redeemAuthorizationCode(deps, { code, clientId: CLIENT, redirectUri: REDIRECT, codeVerifier: VERIFIER, resource: RESOURCE }, now);
const refresh = (refreshToken: string, now = NOW) => refreshGrant(deps, { refreshToken, clientId: CLIENT, resource: RESOURCE }, now);
const refused = (error: unknown) => error instanceof AppError && error.code === 'UNAUTHENTICATED';

describe('a grant', () => {
  it("makes the client's external session, whose token the access token is, until it expires", async () => {
    const { code, session } = await grant();
    expect(session).toMatchObject({ userId, title: 'Claude Code on laptop', origin: 'external' });
    const tokens = await redeem(code);
    expect((await authenticate(deps, tokens.accessToken, NOW)).caller).toMatchObject({ userId, sessionId: session.id, external: true });
    const expired = new Date(NOW.getTime() + ACCESS_TOKEN_MINUTES * 60_000);
    await expect(authenticate(deps, tokens.accessToken, expired)).rejects.toSatisfy(refused);
  });

  it('refuses a code past its minutes', async () => {
    const { code } = await grant();
    await expect(redeem(code, new Date(NOW.getTime() + CODE_MINUTES * 60_000))).rejects.toSatisfy(refused);
  });

  it('issues a code redeemed twice at once once; the other attempt revokes what it gave', async () => {
    const { code } = await grant();
    const outcomes = await Promise.allSettled([redeem(code), redeem(code)]);
    const issued = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(issued).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected' && refused(outcome.reason))).toHaveLength(1);
    await expect(authenticate(deps, issued[0]!.accessToken, NOW)).rejects.toSatisfy(refused);
    await expect(refresh(issued[0]!.refreshToken)).rejects.toSatisfy(refused);
  });

  it('rotates a refresh token once when it is used twice at once; the spent one revokes the grant', async () => {
    const { code } = await grant();
    const first = await redeem(code);
    const outcomes = await Promise.allSettled([refresh(first.refreshToken), refresh(first.refreshToken)]);
    const issued = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(issued).toHaveLength(1);
    await expect(authenticate(deps, issued[0]!.accessToken, NOW)).rejects.toSatisfy(refused);
    await expect(refresh(issued[0]!.refreshToken)).rejects.toSatisfy(refused);
  });

  it('keeps nothing but hashes', async () => {
    const { code } = await grant();
    const tokens = await redeem(code);
    const stored = JSON.stringify([await prisma.oAuthGrant.findMany(), await prisma.oAuthRefreshToken.findMany(), await prisma.apiToken.findMany()]);
    for (const secret of [code, tokens.accessToken, tokens.refreshToken]) expect(stored).not.toContain(secret);
  });
});
