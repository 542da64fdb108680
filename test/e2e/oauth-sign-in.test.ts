// Issue 42, item 5 end to end: an MCP client signs in with OAuth instead of a pasted token. The client is the official
// MCP client package's OAuth support (@modelcontextprotocol/client 2.4.0: discovery, its client ID metadata document,
// PKCE, the iss check); the person signs in and consents in the console in Chromium; the client gets an external
// session of its own and calls relay_tool with its access token through the SDK's MCP client; a 2026 client's own
// transport finds where to sign in from /mcp's 401 and signs in the same way. Then what must fail
// fails: a wrong PKCE verifier, a wrong redirect_uri, another client's code, a replayed code (which revokes what the
// code gave), a tampered token, a rotated refresh token used again, and tokens for another resource.
//
// The clients' metadata documents are served over https on loopback by a certificate of a test CA the gateway trusts
// (NODE_EXTRA_CA_CERTS), and RELAY_OAUTH_INSECURE_CLIENT_IDS lets the gateway fetch them from a loopback address.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  auth,
  Client,
  discoverAuthorizationServerMetadata,
  IssuerMismatchError,
  refreshAuthorization,
  startAuthorization,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { createTestCa, type TestCa } from '@relay/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, seriousViolations } from '../harness/browser.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

type StoredTokens = { access_token: string; refresh_token?: string; token_type: string };

let relay: Relay;
let ca: TestCa;
let documents: Server;
let browser: Browser;
/** The two clients' ids: the https URLs of their metadata documents. */
let claudeId: string;
let otherId: string;
const CLAUDE_REDIRECT = 'http://127.0.0.1:1/callback';
const OTHER_REDIRECT = 'http://127.0.0.1:2/callback';

beforeAll(async () => {
  ca = createTestCa();
  const certificate = ca.issue('client-documents', ['localhost']);
  documents = createServer({ cert: readFileSync(certificate.cert), key: readFileSync(certificate.key) }, (request, response) => {
    const document = request.url === '/claude.json' ? claude() : request.url === '/other.json' ? other() : undefined;
    response.writeHead(document === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  claudeId = `${base}/claude.json`;
  otherId = `${base}/other.json`;
  relay = await startRelay({ name: 'desk', env: { RELAY_OAUTH_INSECURE_CLIENT_IDS: 'true', NODE_EXTRA_CA_CERTS: certificate.ca } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  documents?.close();
  ca?.remove();
});

const claude = () => ({
  client_id: claudeId,
  client_name: 'Claude Code',
  client_uri: 'https://claude.example/code',
  redirect_uris: [CLAUDE_REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});
const other = () => ({ ...claude(), client_id: otherId, client_name: 'Other client', redirect_uris: [OTHER_REDIRECT] });

/** An OAuth client provider that keeps everything in memory, as an MCP client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  information: { client_id: string } | undefined;
  saved: StoredTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  /** `clientMetadataUrl`: the client's metadata document; without one it registers itself. */
  constructor(
    readonly clientMetadataUrl: string | undefined,
    readonly redirectUrl: string,
  ) {}
  get clientMetadata() {
    return {
      client_name: 'Claude Code',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: { client_id: string }) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A fresh authorization request of `clientId` through the client package: its URL and its PKCE verifier. */
async function authorizationOf(clientId: string, redirectUrl: string, resource = relay.mcpUrl) {
  const metadata = await discoverAuthorizationServerMetadata(relay.gatewayUrl);
  return startAuthorization(relay.gatewayUrl, { metadata, clientInformation: { client_id: clientId }, redirectUrl, state: 'st-1', resource });
}

/** The person's consent through the console's API (what the consent page posts): what the client gets back. */
async function consentBack(authorizationUrl: URL, title = 'Forged'): Promise<URLSearchParams> {
  const decided = await relay.api('POST', '/api/v1/oauth/authorization', { request: Object.fromEntries(authorizationUrl.searchParams), allow: true, title });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  return new URL(decided.body.redirectTo).searchParams;
}

/** The code the client gets back after the person's consent. */
const consent = async (authorizationUrl: URL) => (await consentBack(authorizationUrl)).get('code')!;

/** POST /oauth/token with these form parameters: the status and the JSON answer. */
async function token(params: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${relay.gatewayUrl}/oauth/token`, { method: 'POST', body: new URLSearchParams(params) });
  return { status: response.status, body: await response.json() };
}

const redeem = (code: string, verifier: string, overrides: Record<string, string> = {}) =>
  token({
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: claudeId,
    redirect_uri: CLAUDE_REDIRECT,
    resource: relay.mcpUrl,
    ...overrides,
  });

/** The status /mcp answers a tools/list with this bearer token. */
async function mcpStatus(accessToken: string): Promise<number> {
  const response = await fetch(relay.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.body?.cancel();
  return response.status;
}

/** relay_tool called through the SDK's MCP client with the bearer token: its result's JSON. */
async function callRelayTool(accessToken: string, args: Record<string, unknown>): Promise<any> {
  const agent = await relay.connectAgent(accessToken);
  try {
    const result = await agent.callTool({ name: 'relay_tool', arguments: args });
    return JSON.parse((result.content as { text: string }[])[0]!.text);
  } finally {
    await agent.close();
  }
}

describe('an MCP client signs in through the console', () => {
  let provider: MemoryProvider;

  it('a 401 from /mcp names the protected resource metadata, which names this relay as the authorization server', async () => {
    const refused = await fetch(relay.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const metadataUrl = `${relay.gatewayUrl}/.well-known/oauth-protected-resource/mcp`;
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    const resource = await (await fetch(metadataUrl)).json();
    expect(resource).toMatchObject({ resource: relay.mcpUrl, authorization_servers: [relay.gatewayUrl] });
    const server = await (await fetch(`${relay.gatewayUrl}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: relay.gatewayUrl,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('signs in and consents in Chromium, names the client, and the client gets its own external session', async () => {
    provider = new MemoryProvider(claudeId, CLAUDE_REDIRECT);
    expect(await auth(provider, { serverUrl: relay.mcpUrl })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('client_id')).toBe(claudeId);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const context = await browser.newContext();
    const page = await context.newPage();
    let callback: URL | undefined;
    await context.route('http://127.0.0.1:1/**', async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' });
    });
    try {
      await page.goto(authorizationUrl.href);
      await page.getByLabel('User token').fill(relay.userToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Let Claude Code use this relay?' }).waitFor();
      expect(await page.locator('main').innerText()).toContain('https://claude.example/code');
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Name of its session').fill('Claude Code on laptop');
      await page.getByRole('button', { name: 'Allow' }).click();
      await until('the browser back at the client', () => callback);
    } finally {
      await context.close();
    }
    expect(callback!.searchParams.get('iss')).toBe(relay.gatewayUrl);
    expect(callback!.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));

    expect(
      await auth(provider, { serverUrl: relay.mcpUrl, authorizationCode: callback!.searchParams.get('code')!, iss: callback!.searchParams.get('iss')! }),
    ).toBe('AUTHORIZED');
    const accessToken = provider.saved!.access_token;
    const sessions = (await relay.api('GET', '/api/v1/sessions')).body.sessions as { id: string; title: string; origin?: string }[];
    const mine = sessions.find((session) => session.title === 'Claude Code on laptop');
    expect(mine, JSON.stringify(sessions)).toBeDefined();

    const read = await callRelayTool(accessToken, { action: 'read_session', relay: 'this', session: mine!.id });
    expect(read, JSON.stringify(read)).toMatchObject({ ok: true });
    // The token acts as that session, and for /mcp only: the user API refuses it.
    expect((await relay.api('GET', '/api/v1/me')).status).toBe(200);
    const asUser = await fetch(`${relay.gatewayUrl}/api/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(asUser.status).toBe(403);
  });

  it("a 2026 client's transport finds where to sign in from /mcp's 401, checks iss, and calls relay_tool signed in", async () => {
    const signingIn = new MemoryProvider(claudeId, CLAUDE_REDIRECT);
    const modern = () => new Client({ name: 'e2e-oauth', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { authProvider: signingIn });
    const refused = modern();
    await expect(refused.connect(transport).then(() => refused.listTools())).rejects.toThrow(UnauthorizedError);
    expect(signingIn.authorizationUrl?.searchParams.get('client_id')).toBe(claudeId);

    const back = await consentBack(signingIn.authorizationUrl!, 'Claude Code via its transport');
    await expect(transport.finishAuth(new URLSearchParams({ code: back.get('code')!, iss: 'https://attacker.example' }))).rejects.toThrow(IssuerMismatchError);
    await transport.finishAuth(back);
    const client = modern();
    await client.connect(new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { authProvider: signingIn }));
    try {
      const result = await client.callTool({ name: 'relay_tool', arguments: { action: 'list_relays' } });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true });
    } finally {
      await client.close();
    }
  });

  it('a client without a metadata document registers itself (RFC 7591) and signs in the same way', async () => {
    const registering = new MemoryProvider(undefined, CLAUDE_REDIRECT);
    expect(await auth(registering, { serverUrl: relay.mcpUrl })).toBe('REDIRECT');
    const clientId = registering.information!.client_id;
    expect(clientId).not.toMatch(/^https?:/);
    const described = await relay.api('GET', `/api/v1/oauth/authorization${registering.authorizationUrl!.search}`);
    expect(described.body).toMatchObject({ client: { id: clientId, name: 'Claude Code', hasMetadataDocument: false } });
    const back = await consentBack(registering.authorizationUrl!, 'Registered client');
    expect(await auth(registering, { serverUrl: relay.mcpUrl, authorizationCode: back.get('code')!, iss: back.get('iss')! })).toBe('AUTHORIZED');
    expect(await mcpStatus(registering.saved!.access_token)).toBe(200);
  });

  it("revoking its session's tokens in the console ends the client's sign-in: its refresh token is refused too", async () => {
    const revoked = new MemoryProvider(claudeId, CLAUDE_REDIRECT);
    await auth(revoked, { serverUrl: relay.mcpUrl });
    const back = await consentBack(revoked.authorizationUrl!, 'Revoked client');
    await auth(revoked, { serverUrl: relay.mcpUrl, authorizationCode: back.get('code')!, iss: back.get('iss')! });
    const sessions = (await relay.api('GET', '/api/v1/sessions')).body.sessions as { id: string; title: string }[];
    const session = sessions.find((candidate) => candidate.title === 'Revoked client')!;
    expect((await relay.api('DELETE', `/api/v1/sessions/${session.id}/token`)).status).toBe(200);
    expect(await mcpStatus(revoked.saved!.access_token)).toBe(401);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: revoked.saved!.refresh_token!, client_id: claudeId });
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a response whose iss is not this relay is refused by the client (RFC 9207) before the code is spent', async () => {
    const forged = new MemoryProvider(claudeId, CLAUDE_REDIRECT);
    await auth(forged, { serverUrl: relay.mcpUrl });
    const code = await consent(forged.authorizationUrl!);
    await expect(auth(forged, { serverUrl: relay.mcpUrl, authorizationCode: code, iss: 'https://attacker.example' })).rejects.toThrow();
    expect(forged.saved).toBeUndefined();
  });

  it('a refresh token rotates: the new tokens work, the old refresh token is refused and revokes the grant', async () => {
    const before = provider.saved!;
    const metadata = await discoverAuthorizationServerMetadata(relay.gatewayUrl);
    const rotated = await refreshAuthorization(relay.gatewayUrl, {
      metadata,
      clientInformation: { client_id: claudeId },
      refreshToken: before.refresh_token!,
      resource: relay.mcpUrl,
    });
    expect(rotated.refresh_token).not.toBe(before.refresh_token);
    expect(await mcpStatus(rotated.access_token)).toBe(200);

    const replayed = await token({ grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: claudeId, resource: relay.mcpUrl });
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Used again, a spent refresh token means it leaked: the grant's tokens stop working (within the gateway's 5 s hold).
    await until('the rotated access token refused', async () => ((await mcpStatus(rotated.access_token)) === 401 ? true : undefined));
    const next = await token({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token!, client_id: claudeId, resource: relay.mcpUrl });
    expect(next).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('a forged or replayed authorization fails', () => {
  it('a wrong PKCE verifier is refused, and spends the code', async () => {
    const { authorizationUrl, codeVerifier } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const code = await consent(authorizationUrl);
    expect(await redeem(code, 'x'.repeat(43))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await redeem(code, codeVerifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a wrong redirect_uri is refused', async () => {
    const { authorizationUrl, codeVerifier } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const code = await consent(authorizationUrl);
    expect(await redeem(code, codeVerifier, { redirect_uri: 'http://127.0.0.1:1/elsewhere' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it("another client's code is refused", async () => {
    const { authorizationUrl, codeVerifier } = await authorizationOf(otherId, OTHER_REDIRECT);
    const code = await consent(authorizationUrl);
    expect(await redeem(code, codeVerifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await redeem(code, codeVerifier, { client_id: otherId, redirect_uri: OTHER_REDIRECT })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('a replayed code is refused and revokes the tokens the code gave', async () => {
    const { authorizationUrl, codeVerifier } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const code = await consent(authorizationUrl);
    const first = await redeem(code, codeVerifier);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await mcpStatus(first.body.access_token)).toBe(200);
    expect(await redeem(code, codeVerifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await until('the first access token refused', async () => ((await mcpStatus(first.body.access_token)) === 401 ? true : undefined));
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: claudeId });
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a tampered access token is refused with the way to sign in', async () => {
    const { authorizationUrl, codeVerifier } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const issued = await redeem(await consent(authorizationUrl), codeVerifier);
    const accessToken: string = issued.body.access_token;
    const tampered = accessToken.slice(0, -1) + (accessToken.endsWith('A') ? 'B' : 'A');
    const response = await fetch(relay.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${tampered}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(await mcpStatus(accessToken)).toBe(200);
  });

  it("tokens are for this relay's /mcp only: another resource is refused at both endpoints", async () => {
    const { authorizationUrl } = await authorizationOf(claudeId, CLAUDE_REDIRECT, 'https://other-relay.example/mcp');
    const refused = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(refused.status).toBe(302);
    const back = new URL(refused.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(CLAUDE_REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    expect(back.searchParams.get('iss')).toBe(relay.gatewayUrl);

    const ours = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const code = await consent(ours.authorizationUrl);
    expect(await redeem(code, ours.codeVerifier, { resource: 'https://other-relay.example/mcp' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_target' },
    });
  });

  it('Deny sends the person back to the client with access_denied, and no session is made', async () => {
    const { authorizationUrl } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const decided = await relay.api('POST', '/api/v1/oauth/authorization', {
      request: Object.fromEntries(authorizationUrl.searchParams),
      allow: false,
      title: 'Denied client',
    });
    const back = new URL(decided.body.redirectTo);
    expect([back.searchParams.get('error'), back.searchParams.get('iss'), back.searchParams.get('code')]).toEqual(['access_denied', relay.gatewayUrl, null]);
    const sessions = (await relay.api('GET', '/api/v1/sessions')).body.sessions as { title: string }[];
    expect(sessions.map((session) => session.title)).not.toContain('Denied client');
  });

  it('an authorization request without PKCE, or to a redirect URI the client did not register, grants nothing', async () => {
    const { authorizationUrl } = await authorizationOf(claudeId, CLAUDE_REDIRECT);
    const withoutPkce = new URL(authorizationUrl);
    withoutPkce.searchParams.delete('code_challenge');
    const refused = await fetch(withoutPkce, { redirect: 'manual' });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const elsewhere = new URL(authorizationUrl);
    elsewhere.searchParams.set('redirect_uri', 'https://attacker.example/callback');
    const shown = await fetch(elsewhere, { redirect: 'manual' });
    expect(shown.status).toBe(400);
    const decided = await relay.api('POST', '/api/v1/oauth/authorization', { request: Object.fromEntries(elsewhere.searchParams), allow: true, title: 'x' });
    expect(decided.status).toBe(400);
  });
});
