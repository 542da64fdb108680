// The OAuth routes' own edges, through the real gateway (fake owners over gRPC): what a client can get wrong before
// any grant is looked at. The whole sign-in runs end to end in test/e2e/oauth-sign-in.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const form = (body: string) => ({ method: 'POST' as const, url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

describe('the token endpoint', () => {
  it('refuses a parameter given twice, a grant type it does not issue, and a code without PKCE, before any code is looked up', async () => {
    const twice = await gateway.app.inject(form('grant_type=authorization_code&code=a&code=b&client_id=c&redirect_uri=r&code_verifier=' + 'v'.repeat(43)));
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toMatchObject({ error: 'invalid_request' });
    expect((await gateway.app.inject(form('grant_type=password&client_id=c'))).json()).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await gateway.app.inject(form('grant_type=authorization_code&code=a&client_id=c&redirect_uri=r'))).json()).toMatchObject({
      error: 'invalid_request',
    });
    expect((await gateway.app.inject(form('grant_type=refresh_token&refresh_token=r&client_id=c&resource=https://other.example/mcp'))).json()).toMatchObject({
      error: 'invalid_target',
    });
    const json = await gateway.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'authorization_code' } });
    expect(json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('answers no-store', async () => {
    expect((await gateway.app.inject(form('grant_type=password&client_id=c'))).headers['cache-control']).toBe('no-store');
  });
});

describe('registration', () => {
  it('refuses metadata without redirect URIs or with an http one to another host, naming the fault', async () => {
    const without = await gateway.app.inject({ method: 'POST', url: '/oauth/register', payload: { client_name: 'x' } });
    expect(without.statusCode).toBe(400);
    expect(without.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const http = await gateway.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['http://app.example/cb'] } });
    expect(http.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringContaining('http://app.example/cb') });
  });

  it('takes a few registrations a minute from one address, then answers 429 with when to try again', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 11; i += 1) {
      last = await gateway.app.inject({ method: 'POST', url: '/oauth/register', payload: {}, remoteAddress: '203.0.113.7' });
      statuses.push(last.statusCode);
    }
    expect(statuses.slice(0, 10).every((status) => status === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    const elsewhere = await gateway.app.inject({ method: 'POST', url: '/oauth/register', payload: {}, remoteAddress: '203.0.113.8' });
    expect(elsewhere.statusCode).toBe(400);
  });
});

describe('the authorization endpoint', () => {
  it('shows the person, rather than redirecting, a request without a client or with a client id that is no metadata document', async () => {
    const without = await gateway.app.inject({ method: 'GET', url: '/oauth/authorize?response_type=code' });
    expect(without.statusCode).toBe(400);
    expect(without.headers['content-type']).toContain('text/plain');
    const insecure = await gateway.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=${encodeURIComponent('http://client.example/meta.json')}&response_type=code`,
    });
    expect(insecure.statusCode).toBe(400);
    expect(insecure.body).toContain('is not an https URL');
    const loopback = await gateway.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=${encodeURIComponent('https://127.0.0.1:9/meta.json')}&response_type=code`,
    });
    expect(loopback.statusCode).toBe(400);
    expect(loopback.body).toContain('is not a public address');
    // A name is checked by the addresses the connection is made to, not by a lookup of its own before it.
    const named = await gateway.app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=${encodeURIComponent('https://localhost:9/meta.json')}&response_type=code`,
    });
    expect(named.statusCode).toBe(400);
    expect(named.body).toContain('its host localhost is not a public address');
  });
});
