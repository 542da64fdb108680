/**
 * Calls to a paired relay's /relay/v1 over HTTP(S): its base URL and this relay's token for it, the prompt's
 * provenance and the trace context in headers. No answer (network, timeout, 5xx) is REMOTE_RELAY_OFFLINE;
 * 401/403 is REMOTE_RELAY_AUTH. The token is never logged. An answer is read up to MAX_MESSAGE_BYTES only: a
 * paired relay is not trusted to keep its answers small, and whatever it answers goes on over gRPC, which takes
 * no more.
 */
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AppError } from '@relay/errors';
import { DRY_RUN_HEADER, MAX_MESSAGE_BYTES, PROVENANCE_HEADERS, VERSION_HEADER } from '@relay/rpc';
import { tracer } from '@relay/telemetry';
import { auth, offline } from '../../domain/errors.ts';
import type { PairAnswer, Provenance, RelayLink } from '../../app/ports.ts';

const DEFAULT_TIMEOUT_MS = 15_000;

export interface RelayRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  /** Under the relay's base URL, e.g. "/relay/v1/tool". */
  path: string;
  body?: unknown;
  provenance?: Provenance;
  /** Extra headers (lower-case names). */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface RelayResponse {
  status: number;
  body: unknown;
  /** The version the relay answered in x-relay-version; "" when it gave none. */
  version: string;
}

/** One paired relay as this relay calls it: `new RelayClient(url, token).request({ path, body })`. */
export class RelayClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  /**
   * Sends one request and answers any status below 500 but 401/403 with its parsed JSON body; throws
   * REMOTE_RELAY_OFFLINE when the relay does not answer in time or fails, REMOTE_RELAY_AUTH when it refuses.
   */
  request(request: RelayRequest): Promise<RelayResponse> {
    const method = request.method ?? 'POST';
    return tracer('pairing').startActiveSpan(
      `${method} ${request.path}`,
      { kind: SpanKind.CLIENT, attributes: { 'server.address': this.baseUrl } },
      async (span) => {
        try {
          const response = await this.#send(method, request);
          span.setAttribute('http.response.status_code', response.status);
          return response;
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  async #send(method: string, request: RelayRequest): Promise<RelayResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.provenance) Object.assign(headers, provenanceHeaders(request.provenance));
    propagation.inject(context.active(), headers);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${request.path}`, {
        method,
        headers,
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw offline(`Relay at ${this.baseUrl} did not answer.`, error);
    }
    const text = await readAtMost(response, MAX_MESSAGE_BYTES).catch(() => '');
    if (text === undefined) throw offline(`Relay at ${this.baseUrl} answered more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB.`);
    if (response.status === 401 || response.status === 403) {
      throw auth(`Relay at ${this.baseUrl} refused this relay's token${refusalText(text)}. Pair the relays again.`);
    }
    if (response.status >= 500) throw offline(`Relay at ${this.baseUrl} answered ${response.status}.`);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch (error) {
      throw offline(`Relay at ${this.baseUrl} answered something that is not JSON (${response.status}).`, error);
    }
    return { status: response.status, body, version: response.headers.get(VERSION_HEADER) ?? '' };
  }
}

/** The response's body as text, or undefined (and the rest left unread) once it is longer than `limit` bytes. */
async function readAtMost(response: Response, limit: number): Promise<string | undefined> {
  if (response.body === null) return '';
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the rest of the body.
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The provenance of a forwarded prompt as headers; the title, the model and each relay name of the chain are
 * percent-encoded (headers are ASCII; a name's commas cannot split the list). An empty chain sends no header.
 */
export function provenanceHeaders(provenance: Provenance): Record<string, string> {
  return {
    [PROVENANCE_HEADERS.originRelay]: provenance.originRelay,
    [PROVENANCE_HEADERS.originSessionId]: provenance.originSessionId,
    [PROVENANCE_HEADERS.originSessionTitle]: encodeURIComponent(provenance.originSessionTitle),
    [PROVENANCE_HEADERS.model]: encodeURIComponent(provenance.model),
    [PROVENANCE_HEADERS.hops]: String(provenance.hops),
    ...(provenance.viaRelays.length > 0 ? { [PROVENANCE_HEADERS.viaRelays]: provenance.viaRelays.map(encodeURIComponent).join(',') } : {}),
  };
}

function refusalText(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? ` (${body.error})` : '';
  } catch {
    return '';
  }
}

/** The other relay's `{ code, error }` refusal as an AppError with its code; anything else as a fault. */
function refusalOf(response: RelayResponse, what: string): AppError {
  const body = response.body as { code?: unknown; error?: unknown } | undefined;
  if (typeof body?.code === 'string' && body.code.startsWith('REMOTE_RELAY_') && typeof body.error === 'string') {
    return new AppError(body.code, response.status === 404 ? 'not_found' : response.status === 409 ? 'failed_precondition' : 'invalid_argument', body.error);
  }
  return offline(`${what} answered ${response.status} without a refusal this relay understands.`);
}

/** RelayLink over RelayClient: pairing by code and forwarded relay_tool calls. */
export const httpRelayLink: RelayLink = {
  async pair(url, offer): Promise<PairAnswer> {
    const response = await new RelayClient(url, undefined).request({ path: '/relay/v1/pair', body: offer });
    const body = response.body as Partial<PairAnswer> | undefined;
    if (response.status !== 200 || typeof body?.name !== 'string' || typeof body.token !== 'string') throw refusalOf(response, `Relay at ${url}`);
    return { name: body.name, version: typeof body.version === 'string' ? body.version : response.version, token: body.token };
  },

  async hello(relay) {
    const response = await new RelayClient(relay.url, relay.token).request({ method: 'GET', path: '/relay/v1/hello' });
    const body = response.body as { name?: unknown; version?: unknown } | undefined;
    if (response.status !== 200 || typeof body?.name !== 'string') throw refusalOf(response, `Relay at ${relay.url}`);
    return { name: body.name, version: typeof body.version === 'string' ? body.version : response.version };
  },

  async callTool(relay, call) {
    const client = new RelayClient(relay.url, relay.token);
    const response = await client.request({
      path: '/relay/v1/tool',
      body: { action: call.action, arguments: JSON.parse(call.argumentsJson) as unknown },
      provenance: call.provenance,
      headers: call.dryRun ? { [DRY_RUN_HEADER]: '1' } : {},
      timeoutMs: call.timeoutMs,
    });
    if (response.status !== 200 || typeof response.body !== 'object' || response.body === null) throw refusalOf(response, `Relay at ${relay.url}`);
    return { resultJson: JSON.stringify(response.body), version: response.version };
  },
};
