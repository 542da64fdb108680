/**
 * relay_tool's reads of this relay that answer at once (the actions marked `answersAtOnce`: list_sessions,
 * read_session, relay_info, list_questions and list_subscriptions), by a 2025-era client, are answered on POST /mcp
 * without the MCP SDK's server and transport (docs/adr/0026).
 * Without MCP sessions the SDK builds both for every POST, turns Node's request into a web Request and the answer back, and parses the message with its schemas
 * again: about 1.4 ms of CPU a call on a two-core machine, where the whole read of the relay costs about 4 ms.
 *
 * Only a request the SDK would take exactly so is answered here: one JSON-RPC request, as the SDK's own schema reads
 * it, with the Accept, Content-Type and MCP-Protocol-Version headers it asks for. Its answer is the one the SDK sends
 * in its JSON response mode, the same JSON-RPC result in one JSON body. Anything else (another method or tool, a
 * batch, a call that may report progress, a header the SDK would refuse) still goes to the SDK, which answers or
 * refuses it as before.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PROTOCOL_VERSION_META_KEY, specTypeSchemas, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest, type RequestId } from '@modelcontextprotocol/server';
import { actionNamed, isActionName } from '../../../app/relay-tool/action-list.ts';
import { namesThisRelay } from '../../../domain/relay-name.ts';
import { traceOf } from './mcp-client.ts';
import { LEGACY_TOOL_NAME, TOOL_NAME } from './relay-tool-definition.ts';

/** A tools/call of relay_tool that answers at once: a read of this relay, or arguments that are not an object. */
export interface ImmediateRead {
  id: RequestId;
  arguments: unknown;
  /** The caller's trace context, from the request's `_meta`. */
  traceparent?: { traceparent: string; tracestate?: string };
}

/** The call a POST /mcp makes that answers at once, when the SDK would take it exactly so and answer it in one JSON body; else undefined. */
export function immediateReadOf(headers: IncomingHttpHeaders, body: unknown, relayName: string): ImmediateRead | undefined {
  if (!acceptsBoth(headers.accept) || mediaTypeOf(headers['content-type']) !== 'application/json') return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !(typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  const parsed = specTypeSchemas.JSONRPCRequest['~standard'].validate(body);
  if ('then' in parsed || parsed.issues !== undefined) return undefined;
  const message = parsed.value as JSONRPCRequest;
  // A 2026-07-28 request (its revision in its own _meta) is the SDK's: its result carries the revision's fields.
  if (message.method !== 'tools/call' || message.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) return undefined;
  const { name, arguments: args, _meta: meta } = message.params ?? {};
  if (name !== TOOL_NAME && name !== LEGACY_TOOL_NAME) return undefined;
  const trace = meta === undefined ? undefined : traceOf(meta);
  const read = { id: message.id, arguments: args, ...(trace === undefined ? {} : { traceparent: trace }) };
  // Arguments that are not an object are relay_tool's to refuse (REMOTE_RELAY_INVALID_INPUT), before anything is read;
  // the SDK's schema would refuse them as a protocol error the agent cannot act on.
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args === undefined ? undefined : read;
  const { action, relay } = args as { action?: unknown; relay?: unknown };
  if (typeof action !== 'string' || !isActionName(action) || actionNamed(action).answersAtOnce !== true || !namesThisRelay(relay, relayName)) return undefined;
  return read;
}

/**
 * Whether the SDK may answer a POST in one JSON body rather than an event stream (one write instead of three, the
 * headers, the event and the end): a single message other than tools/call — initialize, tools/list, a notification —
 * sends nothing before its answer. A tools/call keeps the stream: it may report progress while it waits.
 */
export function answersAtOnce(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method !== 'tools/call';
}

/** The SDK's rule: Accept names both application/json and text/event-stream. */
function acceptsBoth(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** A Content-Type's media type, lowercased, without parameters; a value the SDK might read otherwise is left to it. */
function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase();
}
