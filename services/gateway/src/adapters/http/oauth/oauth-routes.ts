/**
 * Sign-in for MCP clients (OAuth 2.1, as MCP's authorization spec asks): this relay's /mcp is a protected resource
 * (RFC 9728 metadata; a 401 from /mcp points at it) and the gateway is its authorization server (RFC 8414 metadata).
 * The person signs in and consents in the console (/oauth/consent, through /api/v1/oauth/authorization); consent
 * makes an external session of its own for the client, whose tokens the session service issues and keeps hashed
 * (relay.session.v1.OAuthService). Clients are known by their client ID metadata documents, or by dynamic
 * registration (RFC 7591) as a fallback; only public clients with PKCE (S256) sign in, for this relay's /mcp only
 * (RFC 8707), and the authorization response carries `iss` (RFC 9207).
 */
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { Logger } from '@relay/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { OAuthServiceClient, SessionClient } from '../../../app/ports.ts';
import { checkAuthorizationRequest, redirectBack, sameResource, type AuthorizationRequest } from '../../../domain/oauth/authorization-request.ts';
import { ClientMetadata, type OAuthClient } from '../../../domain/oauth/client-metadata.ts';
import { checkToken, tooManyFailures } from '../authenticate-bearer.ts';
import { CONSENT_PAGE } from '../console/console-static.ts';
import { FailureLimit } from '../failure-limits.ts';
import { answered } from '../../../domain/answers.ts';
import { answers, invalidInput, typed } from '../openapi.ts';
import { callOwner, sendError, userOf } from '../user-api.ts';
import { ClientDirectory, UnknownClient } from './client-directory.ts';

export interface OAuthRouteDeps {
  oauth: OAuthServiceClient;
  sessions: SessionClient;
  logger: Logger;
  /** The base URL users and clients reach this gateway at: the issuer, and the resource's origin. */
  publicUrl: string;
  /** Tests only: client ID metadata documents over http and on loopback (RELAY_OAUTH_INSECURE_CLIENT_IDS). */
  insecureClientIds?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where a 401 from /mcp says the protected resource's metadata is (RFC 9728, section 5.1); unset without sign-in. */
    oauthResourceMetadataUrl: string | undefined;
  }
}

/** Registrations one client address may make per minute (every registration counts, accepted or not). */
const REGISTRATIONS_PER_MINUTE = 10;

/** A PKCE code verifier (RFC 7636, section 4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const parameter = z.string({ error: 'each parameter of the request must be given once' }).max(4000);
const NAMED = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'resource', 'scope'] as const;
/** An authorization request's parameters (OAuth 2.1, 4.1.1), each given once: those it names, and any other. */
const AuthorizationParams = z
  .object(Object.fromEntries(NAMED.map((name) => [name, parameter.optional()])) as Record<(typeof NAMED)[number], z.ZodOptional<typeof parameter>>)
  .catchall(parameter)
  .describe("An MCP client's authorization request: client_id, redirect_uri, code_challenge, …");
/** The person's decision on it, as the consent page posts it. */
const Decision = z.object(
  {
    request: AuthorizationParams,
    allow: z.boolean({ error: 'allow must be true or false' }),
    title: z.string({ error: 'title must be a string' }).max(200, { error: 'title must be at most 200 characters' }).default(''),
  },
  { error: 'the body must be a JSON object, for example {"request": {…}, "allow": true, "title": "Claude Code on laptop"}' },
);
const AuthorizationView = z
  .strictObject({
    client: z.strictObject({ id: z.string(), name: z.string(), uri: z.string().nullable(), hasMetadataDocument: z.boolean() }),
    redirectUri: z.string(),
    resource: z.string(),
  })
  .meta({
    id: 'OAuthAuthorization',
    description: 'What the consent page shows of an MCP client signing in: the client as its metadata names it, where it sends the person back, the resource.',
  });
const DecisionView = z.strictObject({ redirectTo: z.string(), session: z.strictObject({ id: z.string(), title: z.string() }).optional() }).meta({
  id: 'OAuthDecision',
  description: "Where the person's browser goes back to the client: with a one-time code and the client's new session, or with access_denied.",
});

/** Registers the metadata documents, /oauth/authorize, /oauth/token, /oauth/register and the console's consent API. */
export function registerOAuthRoutes(app: FastifyInstance, deps: OAuthRouteDeps): void {
  const issuer = deps.publicUrl;
  const resource = `${deps.publicUrl}/mcp`;
  const clients = new ClientDirectory(deps.oauth, deps.insecureClientIds === true);
  app.decorate('oauthResourceMetadataUrl', `${deps.publicUrl}/.well-known/oauth-protected-resource/mcp`);

  const resourceMetadata: OAuthProtectedResourceMetadata = {
    resource,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'relay',
  };
  const serverMetadata: OAuthMetadata & { client_id_metadata_document_supported: boolean; authorization_response_iss_parameter_supported: boolean } = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
  const sendMetadata = (document: object) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'max-age=3600').send(document);
  app.get('/.well-known/oauth-protected-resource', sendMetadata(resourceMetadata));
  app.get('/.well-known/oauth-protected-resource/mcp', sendMetadata(resourceMetadata));
  app.get('/.well-known/oauth-authorization-server', sendMetadata(serverMetadata));

  /** The client and its checked request, or the refusal answered on `reply` (undefined). */
  const checked = async (params: Record<string, string | undefined>, reply: FastifyReply, refuseTo: 'page' | 'api') => {
    const show = (message: string) =>
      refuseTo === 'page' ? reply.code(400).type('text/plain; charset=utf-8').send(message) : sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', message);
    if (params.client_id === undefined) return void show('The client sent no client_id; nothing was granted.');
    let client: OAuthClient;
    try {
      client = await clients.find(params.client_id);
    } catch (error) {
      if (error instanceof UnknownClient) return void show(`${error.message} Nothing was granted.`);
      throw error;
    }
    const outcome = checkAuthorizationRequest(params, client, resource);
    if ('request' in outcome) return { client, request: outcome.request };
    const refused = outcome.refused;
    if ('show' in refused) return void show(refused.show);
    const back = redirectBack(refused.redirectUri, issuer, { error: refused.error, error_description: refused.description, state: refused.state });
    if (refuseTo === 'page') return void reply.redirect(back, 302);
    return void sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', `The client's request is refused: ${refused.description}.`);
  };

  // The authorization endpoint: a request that may go ahead continues in the console, where the person signs in
  // (if they have not) and decides.
  app.get('/oauth/authorize', async (request, reply) => {
    const params = singleValued(request.query);
    if (params === undefined) return reply.code(400).type('text/plain; charset=utf-8').send('Each parameter may be given once; nothing was granted.');
    if ((await checked(params, reply, 'page')) === undefined) return reply;
    return reply.redirect(`${CONSENT_PAGE}?${new URLSearchParams(params as Record<string, string>).toString()}`, 302);
  });

  // What the consent page shows: the client, as its metadata names it, and where it sends the person back.
  const api = typed(app);
  api.get(
    '/api/v1/oauth/authorization',
    { schema: { querystring: AuthorizationParams, response: answers(AuthorizationView) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const found = await checked(request.query, reply, 'api');
      if (found === undefined) return reply;
      return { client: describe(found.client), redirectUri: found.request.redirectUri, resource };
    },
  );

  // The person's decision. Allowing makes the client's external session (titled as the person edited it) and a
  // one-time code for it; either way the page sends the browser back to the client.
  api.post('/api/v1/oauth/authorization', { schema: { body: Decision, response: answers(DecisionView) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const found = await checked(request.body.request, reply, 'api');
    if (found === undefined) return reply;
    reply.header('cache-control', 'no-store');
    const { request: authorization } = found;
    if (!request.body.allow) return { redirectTo: back(authorization, { error: 'access_denied', error_description: 'the person declined' }) };
    const title = request.body.title.trim() || found.client.name;
    const granted = await callOwner(reply, deps.logger, () =>
      deps.oauth.grantAuthorization({
        userId,
        clientId: authorization.clientId,
        redirectUri: authorization.redirectUri,
        codeChallenge: authorization.codeChallenge,
        resource: authorization.resource,
        title,
      }),
    );
    if (granted === undefined) return reply;
    return { redirectTo: back(authorization, { code: granted.code }), session: { id: answered(granted.session, 'GrantAuthorization', 'session').id, title } };
  });
  const back = (authorization: AuthorizationRequest, params: Record<string, string>) =>
    redirectBack(authorization.redirectUri, issuer, { ...params, state: authorization.state });

  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    });

    // The token endpoint (OAuth 2.1, section 3.2): codes and refresh tokens are checked like bearer tokens, so a
    // client that keeps presenting bad ones must wait.
    scope.post('/oauth/token', async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const form = request.body instanceof URLSearchParams ? singleValued(Object.fromEntries(groupParams(request.body))) : undefined;
      if (form === undefined) return tokenError(reply, 'invalid_request', 'send the parameters as application/x-www-form-urlencoded, each once');
      const clientId = form.client_id;
      if (clientId === undefined) return tokenError(reply, 'invalid_request', 'client_id is required (this relay signs in public clients)');
      if (form.resource !== undefined && !sameResource(form.resource, resource))
        return tokenError(reply, 'invalid_target', `this relay issues tokens for ${resource} only`);
      let secret: string;
      let redeem: (value: string) => Promise<{ tokens?: { accessToken: string; expiresInSeconds: number; refreshToken: string } }>;
      if (form.grant_type === 'authorization_code') {
        const { code, redirect_uri: redirectUri, code_verifier: codeVerifier } = form;
        if (code === undefined || redirectUri === undefined) return tokenError(reply, 'invalid_request', 'code and redirect_uri are required');
        if (codeVerifier === undefined || !CODE_VERIFIER.test(codeVerifier))
          return tokenError(reply, 'invalid_request', 'code_verifier (PKCE, 43 to 128 characters) is required');
        secret = code;
        redeem = (value) => deps.oauth.redeemAuthorizationCode({ code: value, clientId, redirectUri, codeVerifier, resource });
      } else if (form.grant_type === 'refresh_token') {
        if (form.refresh_token === undefined) return tokenError(reply, 'invalid_request', 'refresh_token is required');
        secret = form.refresh_token;
        redeem = (value) => deps.oauth.refreshGrant({ refreshToken: value, clientId, resource });
      } else {
        return tokenError(reply, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
      }
      let outcome;
      try {
        outcome = await checkToken(request, secret, redeem);
      } catch (error) {
        deps.logger.error({ err: error }, 'the token endpoint could not redeem a grant');
        return reply.code(503).send({ error: 'temporarily_unavailable', error_description: 'try again in a moment' });
      }
      if (outcome.kind === 'wait') {
        const refusal = tooManyFailures(outcome.seconds);
        return reply.code(429).header('retry-after', String(outcome.seconds)).send({ error: 'slow_down', error_description: refusal.message });
      }
      const tokens = outcome.kind === 'ok' ? outcome.value.tokens : undefined;
      if (tokens === undefined)
        return tokenError(reply, 'invalid_grant', 'the code or refresh token is unknown, used, expired, or not for this client, redirect_uri or code_verifier');
      return { access_token: tokens.accessToken, token_type: 'Bearer', expires_in: tokens.expiresInSeconds, refresh_token: tokens.refreshToken };
    });
  });

  // Dynamic client registration (RFC 7591), for clients without a metadata document: public clients only. Anyone may
  // register (a registration grants nothing until a person consents), so each client address gets a few a minute.
  const registrations = new FailureLimit(REGISTRATIONS_PER_MINUTE);
  app.post('/oauth/register', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const seconds = await registrations.failed(request);
    if (seconds !== undefined) {
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send({ error: 'slow_down', error_description: `too many registrations from your address; try again in ${seconds} s` });
    }
    const parsed = ClientMetadata.safeParse(request.body);
    if (!parsed.success) {
      const redirect = parsed.error.issues.some((issue) => issue.path[0] === 'redirect_uris');
      return reply.code(400).send({
        error: redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
        error_description: parsed.error.issues.map((issue) => issue.message).join('; '),
      });
    }
    const { client_id: _ignored, token_endpoint_auth_method: _secretless, ...metadata } = parsed.data;
    const registered = { ...metadata, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    try {
      const { clientId } = await deps.oauth.registerClient({ metadataJson: JSON.stringify(registered) });
      return reply.code(201).send({ client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), ...registered });
    } catch (error) {
      deps.logger.error({ err: error }, 'client registration failed');
      return reply.code(503).send({ error: 'temporarily_unavailable', error_description: 'try again in a moment' });
    }
  });
}

/** A query or form whose every parameter is given once, or undefined when one is repeated (RFC 6749, 3.1 and 3.2). */
function singleValued(query: unknown): Record<string, string | undefined> | undefined {
  const params: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') return undefined;
    params[name] = value;
  }
  return params;
}

/** A form's parameters, a repeated one as a list (which singleValued refuses). */
function groupParams(form: URLSearchParams): Map<string, string | string[]> {
  const grouped = new Map<string, string | string[]>();
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    grouped.set(name, values.length === 1 ? values[0]! : values);
  }
  return grouped;
}

function describe(client: OAuthClient) {
  return { id: client.clientId, name: client.name, uri: client.uri ?? null, hasMetadataDocument: client.hasMetadataDocument };
}

function tokenError(reply: FastifyReply, error: string, description: string): FastifyReply {
  return reply.code(400).send({ error, error_description: description });
}
