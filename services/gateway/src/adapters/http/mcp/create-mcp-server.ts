/**
 * The MCP server one request is answered by. It is built per request for the authenticated caller,
 * so any replica answers any request (no server-side MCP session).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@relay/telemetry';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import type { Caller } from '../../../domain/caller.ts';
import { dispatchToolCall, type CallChannel } from '../../../app/relay-tool/dispatch.ts';
import { preview } from '../../../domain/input-bounds.ts';
import { readRelayState, relayToolOn } from '../../../app/relay-tool/read-relay-state.ts';
import { LEGACY_TOOL_NAME, RELAY_TOOL_DEFINITION, TOOL_NAME } from './relay-tool-definition.ts';
import { toCallToolResult } from './call-tool-result.ts';
import { RELAY_VERSION } from '../../../domain/version.ts';
import type { InFlightCalls } from './in-flight-calls.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../../../app/ports.ts';

// The SDK would build an Ajv instance (with its formats) for every server, so for every request; it is only used
// for elicitation schemas, and one serves them all.
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export interface McpDeps {
  relayName: string;
  /** How long an external session's call may hold its response (RELAY_EXTERNAL_CALL_SECONDS). */
  externalCallSeconds?: number;
  /** The base of openUrl links: the relay's public URL, when one is set. */
  openUrlBase: string | undefined;
  sessions: SessionClient;
  pairing: PairingClient;
  questions: QuestionClient;
  logger: Logger;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

// Looser than the SDK's CallToolRequestSchema: arguments that are not an object must still reach
// dispatch, so the agent gets REMOTE_RELAY_INVALID_INPUT rather than a protocol error.
export const CallToolRequest = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

/** A low-level MCP server offering relay_tool to the agent of `caller`'s session; `inFlight` spans the process. */
export function createMcpServer(caller: Caller & { sessionId: string }, deps: McpDeps, inFlight: InFlightCalls): Server {
  const server = new Server(
    { name: 'relay', title: `Relay ${deps.relayName}`, version: RELAY_VERSION },
    // logging: a client that gave no progressToken still hears what a long call waits for (notifications/message).
    { capabilities: { tools: {}, logging: {} }, jsonSchemaValidator: JSON_SCHEMA_VALIDATOR },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    return { tools: relayToolOn(await readRelayState(deps, true)) ? [RELAY_TOOL_DEFINITION] : [] };
  });

  const callTool = async (request: z.infer<typeof CallToolRequest>, extra: Extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    if (name !== TOOL_NAME && name !== LEGACY_TOOL_NAME) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${preview(name)}. This server offers ${TOOL_NAME}.`);
    }
    return callRelayTool(input ?? {}, { caller, deps, inFlight, requestId: extra.requestId }, channelOf(extra, deps.logger));
  };
  // Server.setRequestHandler re-validates tools/call against the SDK's strict schema before any
  // handler runs; the base Protocol registration keeps our own validation in charge.
  const register = Protocol.prototype.setRequestHandler as (
    this: Server,
    schema: typeof CallToolRequest,
    handler: (request: z.infer<typeof CallToolRequest>, extra: Extra) => Promise<CallToolResult>,
  ) => void;
  register.call(server, CallToolRequest, callTool);
  // The call being cancelled was answered by another server of this process (one per POST).
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    if (notification.params.requestId !== undefined) inFlight.cancel(caller.sessionId, notification.params.requestId);
  });
  return server;
}

/** Whose relay_tool call an MCP request is, and where a notifications/cancelled finds it. */
interface RelayToolRequest {
  caller: Caller & { sessionId: string };
  deps: McpDeps;
  inFlight: InFlightCalls;
  requestId: RequestId;
}

/**
 * Answers one relay_tool call of an MCP request. It ends early when the client cancels it (a notifications/cancelled,
 * which may come in another POST: `inFlight`) or goes away (`channel.signal`, the request's own).
 */
async function callRelayTool(input: unknown, request: RelayToolRequest, channel: CallChannel): Promise<CallToolResult> {
  const { caller, deps, inFlight, requestId } = request;
  // One controller the request's signal aborts, where AbortSignal.any made a composite signal for every call.
  const cancelled = new AbortController();
  const withRequest = () => cancelled.abort(channel.signal.reason);
  if (channel.signal.aborted) withRequest();
  else channel.signal.addEventListener('abort', withRequest, { once: true });
  const forget = inFlight.register(caller.sessionId, requestId, cancelled);
  try {
    const within = channel.answerWithinSeconds === undefined ? {} : { answerWithinSeconds: channel.answerWithinSeconds };
    return toCallToolResult(await dispatchToolCall(input, caller, deps, { signal: cancelled.signal, progress: channel.progress, ...within }));
  } finally {
    forget();
    channel.signal.removeEventListener('abort', withRequest);
  }
}

/** The request `_meta` key a client says how long it bears a call with (seconds). */
const ANSWER_WITHIN_META = 'relay/answerWithinSeconds';

/**
 * The call's line to the agent: `signal` (the client cancelled or went away), and progress
 * notifications on the request's progressToken, so a client whose tool timeout resets on progress
 * keeps waiting through a long turn. A client that gave no progressToken gets the same sentences as
 * MCP logging notifications (level info), on the call's own response stream.
 */
function channelOf(extra: Extra, logger: Logger): CallChannel {
  const progressToken = extra._meta?.progressToken;
  const within = extra._meta?.[ANSWER_WITHIN_META];
  let progress = 0;
  return {
    signal: extra.signal,
    ...(typeof within === 'number' && Number.isFinite(within) && within >= 0 ? { answerWithinSeconds: within } : {}),
    async progress(message) {
      progress += 1;
      try {
        if (progressToken === undefined) {
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'relay_tool', data: message } });
        } else {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } });
        }
      } catch (error) {
        // A client that went away misses its progress; the call itself goes on to its end.
        logger.debug({ err: error }, 'progress notification not sent');
      }
    },
  };
}
