/**
 * What the client of one MCP request speaks, read from the request itself: a 2026-07-28 request carries its revision
 * and the client's capabilities in its `_meta` envelope; a 2025-era request carries neither (its server was built for
 * it after its `initialize`, and knows nothing of the client beyond the request).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from './mcp-tasks.ts';

export interface McpClientView {
  /** The request is of the 2026-07-28 revision (or later). */
  modern: boolean;
  /** A 2026 client that declares the Tasks extension (io.modelcontextprotocol/tasks). */
  tasks: boolean;
  /** A 2026 client that takes URL-mode elicitation: a card is answered as an input_required URL request. */
  opensUrls: boolean;
  /** The caller's W3C trace context (`_meta.traceparent`, `_meta.tracestate`), when it sent one. */
  traceparent?: { traceparent: string; tracestate?: string };
}

/** The view of the client of the request `ctx` answers. */
export function clientOf(ctx: ServerContext): McpClientView {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const trace = traceOf({ ...ctx.mcpReq._meta, ...envelope });
  return {
    modern: envelope !== undefined,
    tasks: (capabilities?.extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION] !== undefined,
    opensUrls: capabilities?.elicitation?.url !== undefined,
    ...(trace === undefined ? {} : { traceparent: trace }),
  };
}

/** A W3C traceparent: version, trace id, parent id, flags (https://www.w3.org/TR/trace-context/). */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** The W3C trace context a request's `_meta` carries, when it carries a valid one. */
export function traceOf(meta: Record<string, unknown>): McpClientView['traceparent'] {
  const traceparent = meta[TRACEPARENT_META_KEY];
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = meta[TRACESTATE_META_KEY];
  return { traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}
