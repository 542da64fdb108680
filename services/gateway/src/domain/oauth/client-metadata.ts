/**
 * Who an MCP client signing in is: its metadata (RFC 7591 fields), from its client ID metadata document (its client_id
 * is the https URL of that document; draft-ietf-oauth-client-id-metadata-document) or, failing that, from its dynamic
 * registration. Only public clients sign in here (token_endpoint_auth_method "none", PKCE instead of a secret).
 */
import { z } from 'zod';

/** What a consent page shows of a client, and where it may send the person back. */
export interface OAuthClient {
  clientId: string;
  /** The client's own name for itself (client_name); its client id's host when it gives none. */
  name: string;
  /** Its home page (client_uri), when it gives one. */
  uri: string | undefined;
  redirectUris: string[];
  /** The client id is its metadata document's URL (else this relay registered it). */
  hasMetadataDocument: boolean;
}

/** A redirect URI a client may use: https, http only to loopback (RFC 8252, 7.3), or an app's own scheme (7.1); never with a fragment. */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.hash !== '') return 'has a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? undefined : 'is http to a host other than loopback; use https';
  if (['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:'].includes(url.protocol)) return `has the scheme ${url.protocol} no app may use`;
  return undefined;
}

/** localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';
}

const RedirectUri = z.string().superRefine((value, context) => {
  const problem = redirectUriProblem(value);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: `redirect_uris: ${JSON.stringify(value.slice(0, 200))} ${problem}` });
});

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

/** The metadata fields this relay reads (RFC 7591, section 2); others are ignored. */
export const ClientMetadata = z.object({
  client_id: z.string().optional(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: HttpUrl.optional(),
  redirect_uris: z.array(RedirectUri, { error: 'redirect_uris must be a list of URLs' }).min(1, { error: 'redirect_uris must name at least one URL' }).max(20),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z
    .array(z.string())
    .refine((types) => types.includes('authorization_code'), { error: 'grant_types must include authorization_code' })
    .optional(),
  response_types: z
    .array(z.string())
    .refine((types) => types.includes('code'), { error: 'response_types must include code' })
    .optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
});
export type ClientMetadata = z.infer<typeof ClientMetadata>;

/**
 * Why a client ID is no metadata document's URL (draft-ietf-oauth-client-id-metadata-document, section 3): https
 * (http only where `allowHttp`, for tests), a path, no fragment, no user or password, no dot segments. Undefined when
 * it is one.
 */
export function metadataDocumentUrlProblem(clientId: string, allowHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'is not an https URL';
  if (url.hash !== '' || clientId.includes('#')) return 'has a fragment';
  if (url.username !== '' || url.password !== '') return 'has a user or password';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  if (/\/\.{1,2}(\/|$)/.test(clientId.replace(/^[a-z]+:\/\/[^/]+/i, ''))) return 'has a "." or ".." segment';
  return undefined;
}

/** Whether a client id is meant as a metadata document's URL (else it is one this relay issued). */
export function looksLikeMetadataDocumentUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The client a metadata document describes, or why it describes none: it must name itself by the URL it was fetched
 * from and be a public client.
 */
export function clientOfDocument(clientId: string, document: unknown): { client: OAuthClient } | { problem: string } {
  const parsed = ClientMetadata.safeParse(document);
  if (!parsed.success) return { problem: parsed.error.issues.map((issue) => issue.message).join('; ') };
  const metadata = parsed.data;
  if (metadata.client_id !== clientId) return { problem: 'its client_id is not the URL it was fetched from' };
  if (metadata.token_endpoint_auth_method !== undefined && metadata.token_endpoint_auth_method !== 'none') {
    return {
      problem: `token_endpoint_auth_method ${metadata.token_endpoint_auth_method} is not offered; this relay signs in public clients ("none") with PKCE`,
    };
  }
  return { client: clientOf(clientId, metadata, true) };
}

/** A registered client, from the metadata its registration kept. */
export function clientOfRegistration(clientId: string, metadata: ClientMetadata): OAuthClient {
  return clientOf(clientId, metadata, false);
}

function clientOf(clientId: string, metadata: ClientMetadata, hasMetadataDocument: boolean): OAuthClient {
  const fallbackName = hasMetadataDocument ? new URL(clientId).host : 'An MCP client';
  return {
    clientId,
    name: metadata.client_name ?? fallbackName,
    uri: metadata.client_uri,
    redirectUris: metadata.redirect_uris,
    hasMetadataDocument,
  };
}
