/**
 * The MCP server one request is answered by, through the official SDK (@modelcontextprotocol/server 2.x). It is built
 * per request for the authenticated caller, so any replica answers any request (no server-side MCP session), and the
 * same server serves both eras: a 2025-era request (after its `initialize`) and a 2026-07-28 one, which carries its
 * revision and the client's capabilities in its own `_meta` (docs/adr/0036-mcp-2026.md).
 */
import {
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type InputRequiredResult,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { Caller } from '../../../domain/caller.ts';
import { dispatchToolCall, type CallChannel } from '../../../app/relay-tool/dispatch.ts';
import { preview } from '../../../domain/input-bounds.ts';
import { readRelayState, relayToolOn } from '../../../app/relay-tool/read-relay-state.ts';
import { cardUrl } from '../../../app/views/turn-result.ts';
import { LEGACY_TOOL_NAME, RELAY_TOOL_DEFINITION, TOOL_NAME } from './relay-tool-definition.ts';
import { toCallToolResult } from './call-tool-result.ts';
import { RELAY_VERSION } from '../../../domain/version.ts';
import type { InFlightCalls } from './in-flight-calls.ts';
import { clientOf, type McpClientView } from './mcp-client.ts';
import type { ToolResult } from '../../../domain/result.ts';
import type { McpTaskClient, PairingClient, QuestionClient, SessionClient } from '../../../app/ports.ts';
import { runsAsTask, serveTasks, startTask, TASKS_EXTENSION } from './mcp-tasks.ts';
import type { McpTaskRunner } from './mcp-task-runner.ts';

// The SDK would build an Ajv instance (with its formats) for every server, so for every request; it is only used
// for elicitation schemas, and one serves them all.
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export interface McpDeps {
  relayName: string;
  /** How long an external session's call may hold its response (RELAY_EXTERNAL_CALL_SECONDS). */
  externalCallSeconds?: number;
  /** The base of openUrl links: the relay's public URL, when one is set. */
  openUrlBase: string | undefined;
  /** The relay's public URL (loopback by default): where a card's page is, for the person to decide it. */
  publicUrl: string;
  sessions: SessionClient;
  pairing: PairingClient;
  questions: QuestionClient;
  /** The relay's clock, which waits and tasks' leases run on; the machine's when left out. */
  clock?: Clock;
  /** The store of MCP clients' tasks; without it, the Tasks extension is not offered. */
  mcpTasks?: McpTaskClient;
  logger: Logger;
}

/**
 * A low-level MCP server offering relay_tool to the agent of `caller`'s session; `inFlight` spans the process. A server
 * of the 2026-07-28 revision given the process's task runner (`taskRunner`) offers the Tasks extension too, when the
 * deps have the tasks' store.
 */
export function createMcpServer(caller: Caller & { sessionId: string }, deps: McpDeps, inFlight: InFlightCalls, taskRunner?: McpTaskRunner): Server {
  const { mcpTasks } = deps;
  const tasks = taskRunner !== undefined && mcpTasks !== undefined ? { ...deps, mcpTasks } : undefined;
  const server = new Server(
    { name: 'relay', title: `Relay ${deps.relayName}`, version: RELAY_VERSION },
    // logging: a 2025 client that gave no progressToken still hears what a long call waits for (notifications/message).
    {
      capabilities: { tools: {}, logging: {}, ...(tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION]: {} } }) },
      jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
    },
  );
  if (tasks !== undefined && taskRunner !== undefined) serveTasks(server, caller, tasks, taskRunner);

  server.setRequestHandler('tools/list', async () => {
    return { tools: relayToolOn(await readRelayState(deps, true)) ? [RELAY_TOOL_DEFINITION] : [] };
  });

  // Arguments that are not an object never get here: the SDK refuses them, so the route answers them first
  // (immediate-read.ts) with relay_tool's REMOTE_RELAY_INVALID_INPUT.
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: input } = request.params;
    if (name !== TOOL_NAME && name !== LEGACY_TOOL_NAME) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${preview(name)}. This server offers ${TOOL_NAME}.`);
    }
    const client = clientOf(ctx);
    if (tasks !== undefined && taskRunner !== undefined && client.tasks && runsAsTask(input, deps.relayName)) {
      // The extension's CreateTaskResult (resultType "task") is a tools/call result the SDK passes through as it is.
      return (await startTask(
        input ?? {},
        caller,
        taskRunner,
        deps.publicUrl,
        client.traceparent === undefined ? {} : { traceparent: client.traceparent },
      )) as unknown as CallToolResult;
    }
    // A hosted agent's call is part of a turn the person watches, its card in the conversation: it waits as before.
    const urlCards = client.opensUrls && caller.external === true;
    return callRelayTool(input ?? {}, { caller, deps, inFlight, requestId: ctx.mcpReq.id, urlCards }, channelOf(ctx, client, urlCards, deps.logger));
  });

  // The call being cancelled was answered by another server of this process (one per POST).
  server.setNotificationHandler('notifications/cancelled', (notification) => {
    if (notification.params.requestId !== undefined) inFlight.cancel(caller.sessionId, notification.params.requestId);
  });
  return server;
}

/** Whose relay_tool call an MCP request is, where a notifications/cancelled finds it, and how a card reaches its client. */
interface RelayToolRequest {
  caller: Caller & { sessionId: string };
  deps: McpDeps;
  inFlight: InFlightCalls;
  requestId: RequestId;
  /** An external session's 2026 client that opens URLs: a pending card is an input_required URL request. */
  urlCards: boolean;
}

/**
 * Answers one relay_tool call of an MCP request. It ends early when the client cancels it (a notifications/cancelled,
 * which may come in another POST: `inFlight`) or goes away (`channel.signal`, the request's own). A card that waits for
 * the person, for an external session's 2026 client that opens URLs, is an input_required result pointing at the card's
 * page: the client's retry (the same call) finds the card again and the person's decision with it.
 */
async function callRelayTool(input: unknown, request: RelayToolRequest, channel: CallChannel): Promise<CallToolResult | InputRequiredResult> {
  const { caller, deps, inFlight, requestId, urlCards } = request;
  // One controller the request's signal aborts, where AbortSignal.any made a composite signal for every call.
  const cancelled = new AbortController();
  const withRequest = () => cancelled.abort(channel.signal.reason);
  if (channel.signal.aborted) withRequest();
  else channel.signal.addEventListener('abort', withRequest, { once: true });
  const forget = inFlight.register(caller.sessionId, requestId, cancelled);
  try {
    const result = await dispatchToolCall(input, caller, deps, { ...channel, signal: cancelled.signal });
    const pendingCard = urlCards ? pendingCardOf(result) : undefined;
    if (pendingCard !== undefined) return cardInputRequired(pendingCard, deps.publicUrl);
    return toCallToolResult(result);
  } finally {
    forget();
    channel.signal.removeEventListener('abort', withRequest);
  }
}

/** The card a refused call waits on for the person (its result names it, pending), if it does. */
function pendingCardOf(result: ToolResult): string | undefined {
  if (result.ok || result.cardStatus !== 'pending' || typeof result.card !== 'string') return undefined;
  return result.card;
}

/**
 * The input_required result of a call whose card waits for the person: one URL-mode elicitation of the card's page in
 * the console. Whatever the client answers to it is never read as the decision (an agent could forge it): the retry
 * finds the card by the call itself, and the person's decision on it.
 */
function cardInputRequired(cardId: string, publicUrl: string): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [`card-${cardId}`]: inputRequired.elicitUrl({
        message: `The relay's owner must decide card ${cardId} before this call goes on. Open the card, decide it there, then the call is made again.`,
        url: cardUrl(publicUrl, cardId),
      }),
    },
  });
}

/** The request `_meta` key a client says how long it bears a call with (seconds). */
const ANSWER_WITHIN_META = 'relay/answerWithinSeconds';

/**
 * The call's line to the agent: `signal` (the client cancelled or went away), progress notifications on the request's
 * progressToken, so a client whose tool timeout resets on progress keeps waiting through a long turn, and the caller's
 * trace (`_meta.traceparent`). A 2025 client that gave no progressToken gets the same sentences as MCP logging
 * notifications (level info), on the call's own response stream. With `urlCards`, a card is told of at once
 * (input_required) rather than waited on.
 */
function channelOf(ctx: ServerContext, client: McpClientView, urlCards: boolean, logger: Logger): CallChannel {
  const meta = ctx.mcpReq._meta;
  const progressToken = meta?.progressToken;
  const within = meta?.[ANSWER_WITHIN_META];
  let progress = 0;
  return {
    signal: ctx.mcpReq.signal,
    ...(typeof within === 'number' && Number.isFinite(within) && within >= 0 ? { answerWithinSeconds: within } : {}),
    ...(client.traceparent === undefined ? {} : { traceparent: client.traceparent }),
    ...(urlCards ? { cardsAnswerAtOnce: true } : {}),
    async progress(message) {
      progress += 1;
      try {
        if (progressToken === undefined) {
          if (!client.modern) await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', logger: 'relay_tool', data: message } });
        } else {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } });
        }
      } catch (error) {
        // A client that went away misses its progress; the call itself goes on to its end.
        logger.debug({ err: error }, 'progress notification not sent');
      }
    },
  };
}
