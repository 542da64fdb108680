/**
 * Finds the client behind a client_id: a URL is fetched as the client's metadata document (no redirects, 5 s, 5 KB,
 * connected only to public addresses — the address checked is the one connected to, so a host that resolves anew
 * cannot slip in a private one — unless `allowHttp` lets tests use loopback over http); any other id is one this
 * relay registered, kept by the session service.
 */
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['::ffff:0:0', 96],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

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
      if (isAppError(error) && error.kind === 'not_found')
        throw new UnknownClient(`No client ${JSON.stringify(clientId.slice(0, 80))} is registered on this relay.`);
      throw error;
    }
  }

  private async fetchDocument(clientId: string): Promise<OAuthClient> {
    const problem = metadataDocumentUrlProblem(clientId, this.allowHttp);
    if (problem !== undefined) throw new UnknownClient(`The client_id ${JSON.stringify(clientId.slice(0, 200))} ${problem}.`);
    const url = new URL(clientId);
    // A host given as an address is connected to without a lookup: it is checked here instead.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowHttp && isIP(literal) !== 0 && NOT_PUBLIC.check(literal, isIP(literal) === 6 ? 'ipv6' : 'ipv4')) {
      throw new UnknownClient(`The client's host ${url.hostname} is not a public address.`);
    }
    let document: unknown;
    try {
      document = JSON.parse(await fetchBounded(url, this.allowHttp ? lookup : publicLookup));
    } catch (error) {
      throw new UnknownClient(
        `The client's metadata document at ${clientId.slice(0, 200)} could not be read (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
    const found = clientOfDocument(clientId, document);
    if ('problem' in found) throw new UnknownClient(`The client's metadata document at ${clientId.slice(0, 200)} is not usable: ${found.problem}.`);
    return found.client;
  }
}

type Lookup = typeof lookup;

/** dns.lookup that fails for a host with any address that is not public (the socket connects to what it answers). */
const publicLookup = ((
  hostname: string,
  options: LookupOptions,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find(({ address, family }) => NOT_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4'));
    if (refused !== undefined) return callback(new Error(`its host ${hostname} is not a public address`), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first === undefined ? callback(new Error(`its host ${hostname} does not resolve`), []) : callback(null, first.address, first.family);
  });
}) as Lookup;

/** GET `url` as JSON: its body, at most MAX_DOCUMENT_BYTES; a redirect, another status or a slow answer is an error. */
function fetchBounded(url: URL, resolve: Lookup): Promise<string> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((settle, fail) => {
    const sent = request(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, lookup: resolve, timeout: FETCH_TIMEOUT_MS },
      (response: IncomingMessage) => {
        if (response.statusCode !== 200) {
          response.resume();
          return fail(new Error(`it answered ${response.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > MAX_DOCUMENT_BYTES) {
            response.destroy();
            return fail(new Error(`it is larger than ${MAX_DOCUMENT_BYTES} bytes`));
          }
          chunks.push(chunk);
        });
        response.on('end', () => settle(Buffer.concat(chunks).toString('utf8')));
        response.on('error', fail);
      },
    );
    sent.on('timeout', () => sent.destroy(new Error(`it did not answer within ${FETCH_TIMEOUT_MS / 1000} s`)));
    sent.on('error', fail);
    sent.end();
  });
}
