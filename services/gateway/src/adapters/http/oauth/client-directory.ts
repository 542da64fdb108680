/**
 * Finds the client behind a client_id: a URL is fetched as the client's metadata document (no redirects, 5 s, 5 KB,
 * public addresses only unless `allowHttp` lets tests use loopback over http); any other id is one this relay
 * registered, kept by the session service.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isAppError } from '@relay/errors';
import {
  clientOfDocument,
  clientOfRegistration,
  ClientMetadata,
  looksLikeMetadataDocumentUrl,
  metadataDocumentUrlProblem,
  type OAuthClient,
} from '../../../domain/oauth/client-metadata.ts';
import type { OAuthServiceClient } from '../../../app/ports.ts';

const FETCH_TIMEOUT_MS = 5_000;
/** The draft's recommended bound on a metadata document. */
const MAX_DOCUMENT_BYTES = 5 * 1024;

// Addresses a metadata document's host must not resolve to: this machine, private networks, link-local.
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['::ffff:0:0', 96]] as const) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** A client that cannot sign in here, with why (shown to the person or answered to the client). */
export class UnknownClient extends Error {}

export class ClientDirectory {
  constructor(
    private readonly oauth: OAuthServiceClient,
    /** Tests only (RELAY_OAUTH_INSECURE_CLIENT_IDS): metadata documents over http and on loopback or private addresses. */
    private readonly allowHttp: boolean,
  ) {}

  /** The client behind `clientId`; UnknownClient when there is none that may sign in. */
  async find(clientId: string): Promise<OAuthClient> {
    if (looksLikeMetadataDocumentUrl(clientId)) return this.fetchDocument(clientId);
    try {
      const { metadataJson } = await this.oauth.getClient({ clientId });
      return clientOfRegistration(clientId, ClientMetadata.parse(JSON.parse(metadataJson)));
    } catch (error) {
      if (isAppError(error) && error.kind === 'not_found') throw new UnknownClient(`No client ${JSON.stringify(clientId.slice(0, 80))} is registered on this relay.`);
      throw error;
    }
  }

  private async fetchDocument(clientId: string): Promise<OAuthClient> {
    const problem = metadataDocumentUrlProblem(clientId, this.allowHttp);
    if (problem !== undefined) throw new UnknownClient(`The client_id ${JSON.stringify(clientId.slice(0, 200))} ${problem}.`);
    const url = new URL(clientId);
    if (!this.allowHttp) await refuseNonPublicHost(url.hostname);
    let document: unknown;
    try {
      const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`it answered ${response.status}`);
      document = JSON.parse(await boundedText(response));
    } catch (error) {
      throw new UnknownClient(`The client's metadata document at ${clientId.slice(0, 200)} could not be read (${error instanceof Error ? error.message : String(error)}).`);
    }
    const found = clientOfDocument(clientId, document);
    if ('problem' in found) throw new UnknownClient(`The client's metadata document at ${clientId.slice(0, 200)} is not usable: ${found.problem}.`);
    return found.client;
  }
}

async function refuseNonPublicHost(hostname: string): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) throw new UnknownClient(`The client's host ${hostname} does not resolve.`);
  for (const { address, family } of addresses) {
    if (NOT_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4')) throw new UnknownClient(`The client's host ${hostname} is not a public address.`);
  }
}

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error(`it is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
