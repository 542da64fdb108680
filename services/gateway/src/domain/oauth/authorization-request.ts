/**
 * An authorization request (OAuth 2.1, section 4.1.1) as this relay accepts it: the code flow, PKCE with S256, for
 * this relay's /mcp only (RFC 8707), back to one of the client's own redirect URIs. Until the redirect URI is known to
 * be the client's, a refusal is shown to the person; after, it goes back to the client, with `iss` (RFC 9207).
 */
import type { OAuthClient } from './client-metadata.ts';

/** A request the person may consent to. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** The PKCE S256 challenge. */
  codeChallenge: string;
  /** This relay's /mcp, which the tokens are for. */
  resource: string;
  state: string | undefined;
}

/** A refusal: shown to the person (no trustworthy redirect URI), or sent back to the client as an OAuth error. */
export type AuthorizationRefusal =
  | { show: string }
  | {
      error: 'invalid_request' | 'unsupported_response_type' | 'invalid_target' | 'access_denied';
      description: string;
      redirectUri: string;
      state: string | undefined;
    };

/** An S256 challenge: BASE64URL of a SHA-256, 43 characters (RFC 7636, 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks the request's parameters against its client and this relay's resource (`resource`, its /mcp URL): the
 * request, or why it is refused.
 */
export function checkAuthorizationRequest(
  params: Record<string, string | undefined>,
  client: OAuthClient,
  resource: string,
): { request: AuthorizationRequest } | { refused: AuthorizationRefusal } {
  const redirectUri = params.redirect_uri;
  if (redirectUri === undefined) return { refused: { show: 'The client sent no redirect_uri; this relay needs it to send you back.' } };
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      refused: { show: `${client.name} asked to send you back to an address it did not register (${redirectUri.slice(0, 200)}). Nothing was granted.` },
    };
  }
  const state = params.state;
  const refuse = (error: Exclude<AuthorizationRefusal, { show: string }>['error'], description: string) => ({
    refused: { error, description, redirectUri, state },
  });
  if (params.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  if (params.code_challenge_method !== 'S256') return refuse('invalid_request', 'PKCE is required: code_challenge_method must be S256');
  if (params.code_challenge === undefined || !S256_CHALLENGE.test(params.code_challenge)) {
    return refuse('invalid_request', 'PKCE is required: code_challenge must be an S256 challenge (43 base64url characters)');
  }
  if (params.resource !== undefined && !sameResource(params.resource, resource)) {
    return refuse('invalid_target', `this relay issues tokens for ${resource} only`);
  }
  return { request: { clientId: client.clientId, redirectUri, codeChallenge: params.code_challenge, resource, state } };
}

/** Whether a resource indicator names `resource` (compared as URLs: case of scheme and host, default port aside). */
export function sameResource(given: string, resource: string): boolean {
  try {
    return new URL(given).href === new URL(resource).href;
  } catch {
    return false;
  }
}

/**
 * The address the person's browser goes back to: the client's redirect URI with the response's parameters added
 * (its own query kept), `iss` always among them (RFC 9207), unset ones left out.
 */
export function redirectBack(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: issuer })) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
