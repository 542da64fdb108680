import { describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_MINUTES,
  CODE_MINUTES,
  expiriesFrom,
  redeemCode,
  redeemRefreshToken,
  REFRESH_TOKEN_DAYS,
  type OAuthGrant,
  type RefreshToken,
} from '../src/domain/oauth/grants.ts';

const NOW = new Date('2026-12-07T12:00:00Z');
const LATER = (ms: number) => new Date(NOW.getTime() + ms);

const grant: OAuthGrant = {
  id: 'g1',
  userId: 'u1',
  sessionId: 's1',
  clientId: 'https://client.example/meta.json',
  redirectUri: 'http://127.0.0.1:5555/callback',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  resource: 'https://relay.example/mcp',
  codeExpiresAt: LATER(CODE_MINUTES * 60_000),
  codeUsedAt: null,
  revokedAt: null,
  live: true,
};
const request = { clientId: grant.clientId, redirectUri: grant.redirectUri, resource: grant.resource, challengeOfVerifier: grant.codeChallenge };

describe('redeemCode', () => {
  it('issues for the client, redirect URI, resource and verifier the code is bound to, until it expires', () => {
    expect(redeemCode(grant, request, NOW)).toBe('issue');
    expect(redeemCode(grant, request, LATER(CODE_MINUTES * 60_000 - 1))).toBe('issue');
    expect(redeemCode(grant, request, LATER(CODE_MINUTES * 60_000))).toBe('refuse');
  });

  it.each([
    ['another client', { clientId: 'https://other.example/meta.json' }],
    ['another redirect URI', { redirectUri: 'http://127.0.0.1:5555/elsewhere' }],
    ['another resource', { resource: 'https://other-relay.example/mcp' }],
    ['a verifier of another challenge', { challengeOfVerifier: 'x'.repeat(43) }],
  ])('refuses %s', (_what, change) => {
    expect(redeemCode(grant, { ...request, ...change }, NOW)).toBe('refuse');
  });

  it('revokes the grant when a used code comes again, and refuses anything of a revoked grant', () => {
    expect(redeemCode({ ...grant, codeUsedAt: NOW }, request, NOW)).toBe('revoke');
    expect(redeemCode({ ...grant, codeUsedAt: NOW, revokedAt: NOW }, request, NOW)).toBe('refuse');
  });

  it('refuses a code whose session was archived or whose user was removed', () => {
    expect(redeemCode({ ...grant, live: false }, request, NOW)).toBe('refuse');
  });
});

describe('redeemRefreshToken', () => {
  const token: RefreshToken = { tokenHash: 'h', grantId: 'g1', createdAt: NOW, expiresAt: LATER(REFRESH_TOKEN_DAYS * 86_400_000), usedAt: null };
  const asked = { clientId: grant.clientId, resource: grant.resource };

  it('issues once for its client and resource, until it expires', () => {
    expect(redeemRefreshToken(token, grant, asked, NOW)).toBe('issue');
    expect(redeemRefreshToken(token, grant, asked, token.expiresAt)).toBe('refuse');
    expect(redeemRefreshToken(token, grant, { ...asked, clientId: 'https://other.example/meta.json' }, NOW)).toBe('refuse');
    expect(redeemRefreshToken(token, grant, { ...asked, resource: 'https://other-relay.example/mcp' }, NOW)).toBe('refuse');
  });

  it('revokes the grant when a used refresh token comes again', () => {
    expect(redeemRefreshToken({ ...token, usedAt: NOW }, grant, asked, NOW)).toBe('revoke');
    expect(redeemRefreshToken({ ...token, usedAt: NOW }, { ...grant, revokedAt: NOW }, asked, NOW)).toBe('refuse');
  });

  it("refuses when the grant's session was archived or its user removed", () => {
    expect(redeemRefreshToken(token, { ...grant, live: false }, asked, NOW)).toBe('refuse');
  });
});

describe('expiriesFrom', () => {
  it('gives codes minutes, access tokens an hour and refresh tokens days', () => {
    expect(expiriesFrom(NOW)).toEqual({
      code: LATER(CODE_MINUTES * 60_000),
      accessToken: LATER(ACCESS_TOKEN_MINUTES * 60_000),
      refreshToken: LATER(REFRESH_TOKEN_DAYS * 86_400_000),
    });
  });
});
