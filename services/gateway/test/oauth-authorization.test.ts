import { describe, expect, it } from 'vitest';
import { checkAuthorizationRequest, redirectBack, sameResource } from '../src/domain/oauth/authorization-request.ts';
import { clientOfDocument, metadataDocumentUrlProblem, redirectUriProblem, type OAuthClient } from '../src/domain/oauth/client-metadata.ts';

const RESOURCE = 'https://relay.example/mcp';
const CLIENT_ID = 'https://client.example/oauth/meta.json';
const client: OAuthClient = {
  clientId: CLIENT_ID,
  name: 'Claude Code',
  uri: undefined,
  redirectUris: ['http://127.0.0.1:5555/callback'],
  hasMetadataDocument: true,
};
const params = {
  client_id: CLIENT_ID,
  redirect_uri: 'http://127.0.0.1:5555/callback',
  response_type: 'code',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  resource: RESOURCE,
  state: 'abc',
};

describe('checkAuthorizationRequest', () => {
  it('accepts the code flow with PKCE S256 for this relay, back to a registered redirect URI', () => {
    expect(checkAuthorizationRequest(params, client, RESOURCE)).toEqual({
      request: { clientId: CLIENT_ID, redirectUri: params.redirect_uri, codeChallenge: params.code_challenge, resource: RESOURCE, state: 'abc' },
    });
  });

  it('takes a request without a resource indicator as for this relay', () => {
    expect(checkAuthorizationRequest({ ...params, resource: undefined }, client, RESOURCE)).toMatchObject({ request: { resource: RESOURCE } });
  });

  it("shows the person, rather than redirect, when the redirect URI is missing or not the client's", () => {
    expect(checkAuthorizationRequest({ ...params, redirect_uri: undefined }, client, RESOURCE)).toMatchObject({ refused: { show: expect.any(String) } });
    expect(checkAuthorizationRequest({ ...params, redirect_uri: 'https://attacker.example/cb' }, client, RESOURCE)).toMatchObject({
      refused: { show: expect.any(String) },
    });
  });

  it.each([
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['no PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a challenge that is no S256 output', { code_challenge: 'short' }, 'invalid_request'],
    ['another resource', { resource: 'https://other-relay.example/mcp' }, 'invalid_target'],
  ])('sends %s back to the client as an error', (_what, change, error) => {
    expect(checkAuthorizationRequest({ ...params, ...change }, client, RESOURCE)).toMatchObject({
      refused: { error, redirectUri: params.redirect_uri, state: 'abc' },
    });
  });
});

describe('sameResource', () => {
  it('compares as URLs', () => {
    expect(sameResource('HTTPS://Relay.example:443/mcp', RESOURCE)).toBe(true);
    expect(sameResource('https://relay.example/mcp/', RESOURCE)).toBe(false);
    expect(sameResource('not a url', RESOURCE)).toBe(false);
  });
});

describe('redirectBack', () => {
  it('adds the parameters and iss to the redirect URI, keeping its query and leaving unset ones out', () => {
    const back = new URL(redirectBack('http://127.0.0.1:5555/callback?x=1', 'https://relay.example', { code: 'c', state: undefined }));
    expect([...back.searchParams]).toEqual([
      ['x', '1'],
      ['code', 'c'],
      ['iss', 'https://relay.example'],
    ]);
  });
});

describe('client metadata', () => {
  it.each([
    ['http://127.0.0.1:5555/callback', undefined],
    ['http://localhost/cb', undefined],
    ['https://app.example/cb', undefined],
    ['cursor://anysphere.cursor-mcp/oauth/callback', undefined],
    ['http://app.example/cb', 'is http to a host other than loopback; use https'],
    ['https://app.example/cb#frag', 'has a fragment'],
    ['javascript:alert(1)', 'has the scheme javascript: no app may use'],
  ])('redirect URI %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });

  it.each([
    [CLIENT_ID, false, undefined],
    ['http://client.example/meta.json', false, 'is not an https URL'],
    ['http://127.0.0.1:9/meta.json', true, undefined],
    ['https://client.example/', false, 'has no path'],
    ['https://user:pw@client.example/meta.json', false, 'has a user or password'],
    ['https://client.example/a/../meta.json', false, 'has a "." or ".." segment'],
    ['https://client.example/meta.json#x', false, 'has a fragment'],
  ])('client id %s (http allowed: %s)', (clientId, allowHttp, problem) => {
    expect(metadataDocumentUrlProblem(clientId, allowHttp)).toBe(problem);
  });

  it('takes a document that names itself by its URL, as a public client', () => {
    const document = {
      client_id: CLIENT_ID,
      client_name: 'Claude Code',
      client_uri: 'https://claude.example',
      redirect_uris: ['http://127.0.0.1:5555/callback'],
    };
    expect(clientOfDocument(CLIENT_ID, document)).toEqual({
      client: {
        clientId: CLIENT_ID,
        name: 'Claude Code',
        uri: 'https://claude.example',
        redirectUris: ['http://127.0.0.1:5555/callback'],
        hasMetadataDocument: true,
      },
    });
    expect(clientOfDocument(CLIENT_ID, { ...document, client_id: 'https://elsewhere.example/meta.json' })).toHaveProperty('problem');
    expect(clientOfDocument(CLIENT_ID, { ...document, token_endpoint_auth_method: 'client_secret_basic' })).toHaveProperty('problem');
    expect(clientOfDocument(CLIENT_ID, { ...document, redirect_uris: [] })).toHaveProperty('problem');
    expect(clientOfDocument(CLIENT_ID, { ...document, redirect_uris: ['http://attacker.example/cb'] })).toHaveProperty('problem');
  });
});
