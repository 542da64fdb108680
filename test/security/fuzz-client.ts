/**
 * Sends the fuzz inputs (fuzz-inputs.ts) to a running relay and tells what came back: each answer's kind (an
 * HTTP status, a relay_tool result code), whether it was a fault (5xx, REMOTE_RELAY_INTERNAL, JSON-RPC's
 * internal error) and how long it took. Every call has a deadline: one not answered by then is abandoned and
 * comes back `late`, so a stalled edge fails the call instead of stalling the run. The fuzz test asserts on
 * these; the benchmark counts them.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HttpCase } from './fuzz-inputs.ts';

export interface Outcome {
  /** "http 400", "tool REMOTE_RELAY_INVALID_INPUT", "tool ok", "mcp -32602", "late", … */
  kind: string;
  /** A 5xx, REMOTE_RELAY_INTERNAL, a JSON-RPC internal error (-32603), or a tool result that is not relay_tool's JSON. */
  fault: boolean;
  /** Not answered within the deadline; the call was abandoned. */
  late: boolean;
  ms: number;
  /** The start of an HTTP answer's body (at most 500 characters). */
  text?: string;
}

/** The tokens the HTTP cases carry. */
export interface FuzzTokens {
  user: string;
  session: string;
}

/** How fast every answer should be (0 answers over 2 s): security-fuzz.bench.ts counts the slower ones, a figure of the machine's load as much as of the relay's. */
export const DEADLINE_MS = 2_000;

/** The fuzz test's deadline: an answer this late is not slow but stalled, whatever the load. */
export const STALLED_MS = 30_000;

const INTERNAL = 'REMOTE_RELAY_INTERNAL';
const JSON_RPC_INTERNAL = -32603;

/** Calls relay_tool with `args` through an MCP client (the SDK's); abandoned (late) after `deadlineMs`. */
export async function sendToolCall(client: Client, args: Record<string, unknown>, deadlineMs: number): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    // The SDK fails the request with RequestTimeout at the deadline (progress does not extend it) and cancels it.
    const result = await client.callTool({ name: 'relay_tool', arguments: args }, undefined, { timeout: deadlineMs, maxTotalTimeout: deadlineMs });
    const ms = elapsed();
    const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
    const parsed = parseResult(text);
    if (parsed === undefined) return { kind: 'tool not relay_tool JSON', fault: true, late: false, ms };
    const code = parsed.ok ? 'ok' : (parsed.code ?? 'no code');
    return { kind: `tool ${code}`, fault: code === INTERNAL, late: false, ms };
  } catch (error) {
    const ms = elapsed();
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: 'late', fault: false, late: true, ms };
    // The client throws for a JSON-RPC error answer (McpError, code -32xxx) and for an HTTP error status (its code).
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number' && code >= 100 && code < 600) return { kind: `http ${code}`, fault: code >= 500, late: false, ms };
    if (typeof code === 'number') return { kind: `mcp ${code}`, fault: code === JSON_RPC_INTERNAL, late: false, ms };
    throw error;
  }
}

function parseResult(text: string): { ok: boolean; code?: string } | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { ok?: unknown }).ok === 'boolean'
      ? (parsed as { ok: boolean; code?: string })
      : undefined;
  } catch {
    return undefined;
  }
}

/** Sends one raw HTTP request to the gateway at `baseUrl`; abandoned (late) when the whole answer has not come within `deadlineMs`. */
export async function sendHttpCase(baseUrl: string, tokens: FuzzTokens, request: HttpCase, deadlineMs: number): Promise<Outcome> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  const token =
    request.auth === 'user' ? tokens.user : request.auth === 'session' ? tokens.session : request.auth === 'bogus' ? 'rly_u_bogus0000000000000000' : undefined;
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  const hasBody = request.body !== undefined && request.method !== 'GET';
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers,
      ...(hasBody ? { body: request.body } : {}),
      signal: AbortSignal.timeout(deadlineMs),
    });
    // GET /mcp with an external session's token opens its standalone event stream, which stays open by design:
    // the answer is the stream's start. Every other answer is read to its end.
    if (request.method === 'GET' && response.status === 200 && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const ms = performance.now() - started;
      await response.body?.cancel();
      return { kind: 'http 200 stream', fault: false, late: false, ms };
    }
    const text = await response.text();
    const ms = performance.now() - started;
    const fault = response.status >= 500 || text.includes(INTERNAL) || text.includes(`"code":${JSON_RPC_INTERNAL}`);
    return { kind: `http ${response.status}`, fault, late: false, ms, text: text.slice(0, 500) };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') return { kind: 'late', fault: false, late: true, ms: performance.now() - started };
    throw error;
  }
}

/**
 * The fuzz relay's gateway settings: the failed-authentication and pairing-code limits have their own tests
 * (services/gateway/test/edges.test.ts); here every bogus token must reach the check instead of a 429.
 */
export const FUZZ_RELAY_ENV: Record<string, string> = { RELAY_AUTH_FAILURES_PER_MINUTE: '1000000', RELAY_PAIRING_TRIES_PER_MINUTE: '1000000' };

/** The relay's user, deciding every card a generated call raises as soon as it shows. */
export interface CardDenier {
  /** Cards denied (approval) or dismissed (question) so far. */
  decided(): number;
  /** Answers of the user API other than 200 and a card already decided or withdrawn (400, 409): none expected. */
  failures(): string[];
  stop(): Promise<void>;
}

/**
 * Looks at the user's pending cards every `intervalMs` of real time and denies or dismisses each, as a person
 * who wants none of the fuzzer's calls would: a generated call that needs the user's Allow (the first session or
 * watch an agent starts, transfer_subscriptions) is refused within the deadline instead of waiting for a person.
 */
export function startCardDenier(baseUrl: string, userToken: string, intervalMs = 100): CardDenier {
  const headers = { authorization: `Bearer ${userToken}` };
  const stopping = new AbortController();
  const failures: string[] = [];
  let decided = 0;
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        const listed = await fetch(`${baseUrl}/api/v1/cards?pending=1`, { headers, signal: stopping.signal });
        if (listed.status !== 200) failures.push(`GET /api/v1/cards answered ${listed.status}: ${(await listed.text()).slice(0, 200)}`);
        else {
          const { cards } = (await listed.json()) as { cards: { id: string; kind: string }[] };
          for (const card of cards) {
            const decision = card.kind === 'approval' ? 'deny' : 'dismiss';
            const answer = await fetch(`${baseUrl}/api/v1/cards/${card.id}`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ decision }),
              signal: stopping.signal,
            });
            // Read every body: a response left unread keeps its abort listener on `stopping.signal`.
            const text = await answer.text();
            if (answer.status === 200) decided += 1;
            else if (answer.status !== 400 && answer.status !== 409)
              failures.push(`POST /api/v1/cards/${card.id} answered ${answer.status}: ${text.slice(0, 200)}`);
          }
        }
      } catch (error) {
        if (!stopping.signal.aborted) failures.push(`the card denier failed: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    decided: () => decided,
    failures: () => [...failures],
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}
