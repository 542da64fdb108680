/**
 * Claude Cloud over Anthropic's Managed Agents API (beta `managed-agents-2026-04-01`), through the official SDK's
 * plain HTTPS client (@anthropic-ai/sdk, `client.beta.sessions`): no CLI and nothing of the agent runs on this
 * machine. The API as documented (platform.claude.com/docs/en/managed-agents, "Session event stream" and "Permission
 * policies"; the SDK's resources/beta/sessions):
 * - a relay session's first turn creates a cloud session, `POST /v1/sessions` with the configured agent
 *   (`agent_with_overrides`: the session's model, and the agent toolset with the `always_ask` permission policy, so
 *   every tool call waits for a confirmation), the configured environment, the repository as a `github_repository`
 *   resource checked out at the session's branch, and the budget (`max_list_cost`) where one is configured. Its id is
 *   kept (ClaudeSessionStates), so a later turn, after a restart too, goes on in the same cloud session;
 * - each turn opens `GET /v1/sessions/{id}/events/stream` (server-sent events, only those after it opens) and then
 *   sends the message, `POST /v1/sessions/{id}/events` with a `user.message`;
 * - an `agent.tool_use` or `agent.mcp_tool_use` whose `evaluated_permission` is `ask` is confirmed when
 *   `session.status_idle` says `requires_action` with its id in `stop_reason.event_ids`: each is the owner's approval
 *   card, and the owner's decision goes back as `user.tool_confirmation` (`result` allow or deny, with `deny_message`);
 * - `session.status_idle` with `end_turn` (or `refusal`) ends the turn; `retries_exhausted`, `budget_reached` and
 *   `session.status_terminated` fail it, with the last `session.error`'s message;
 * - stop sends `user.interrupt`, and the turn ends without waiting for the cloud beyond STOP_GRACE_MS;
 * - tokens are the sum of the turn's `span.model_request_end` `model_usage`, its cost the growth of the session's
 *   cumulative `session.usage` `list_cost` (USD, in cents);
 * - with RELAY_CLAUDE_CLOUD_MCP_URL (the gateway's /mcp as the cloud reaches it), the session gets relay_tool: that
 *   URL as its MCP server `relay` (`mcp_servers`, its toolset `always_allow`: relay_tool asks the owner itself where
 *   the rules say), called with the relay session's token, kept as a `static_bearer` credential in a vault of the
 *   cloud session's own (`POST /v1/vaults`, `…/credentials`; `vault_ids`) and replaced each turn by the token of the
 *   worker that runs it.
 * The turn lives in the cloud, so a replica that stops hands it over (ADR 0034): its resume point is the cloud session
 * and the id of the message it sent there, parked while a card waits. The replica that takes it over reads the
 * session's events after that message (`GET /v1/sessions/{id}/events`) and then the live ones, so the reply, the
 * usage and the calls still waiting come back whole; each card is raised under the tool call's id, so it is the same
 * card, and a call confirmed before is not confirmed again.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  BetaManagedAgentsSessionEvent,
  BetaManagedAgentsSessionStatusIdleEvent,
  BetaManagedAgentsStreamSessionEvents,
} from '@anthropic-ai/sdk/resources/beta/sessions/events';
import type { SessionCreateParams } from '@anthropic-ai/sdk/resources/beta/sessions/sessions';
import type { Logger } from '@relay/telemetry';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';
import type { ClaudeSessionStates } from '../../../app/turns/claude-session-states.ts';
import type { QuestionCards } from '../../../app/turns/question-cards.ts';
import {
  isHandedOver,
  TurnFailed,
  type Availability,
  type ConversationHistory,
  type Provider,
  type ResumePoint,
  type TurnInput,
  type TurnReply,
} from '../../../app/turns/provider.ts';
import type { RunnableSession } from '../../../app/turns/turn-store.ts';
import { askOwner } from '../../../app/turns/ask-owner.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';
import { RELAY_MCP_SERVER } from '../claude/claude-query-options.ts';
import { toolCard, type ToolUse } from './claude-cloud-cards.ts';

/** How long a stopped turn waits for its interrupt to be taken (the spec's 5 s, less). */
const STOP_GRACE_MS = 3_000;

export interface ClaudeCloudOptions {
  apiKey: string | undefined;
  agentId: string | undefined;
  environmentId: string | undefined;
  /** Clones a private repository. */
  githubToken: string | undefined;
  /** Each cloud session's spend ceiling. */
  budgetUsd: number | undefined;
  /** The API's base URL; undefined: Anthropic's. */
  baseUrl: string | undefined;
  /** The gateway's /mcp as the cloud reaches it; undefined: no relay_tool for cloud sessions. */
  mcpUrl: string | undefined;
  models: readonly string[];
  cards: QuestionCards;
  /** Where a relay session's cloud session id (and its cumulative cost) is kept between turns and restarts. */
  states: ClaudeSessionStates;
  history: ConversationHistory;
  usage: Pick<UsageLedger, 'record'>;
  logger: Logger;
}

/** Why Claude Cloud cannot run with these settings ('' when it can): the variables it still needs. */
export function claudeCloudMissing(settings: {
  ANTHROPIC_API_KEY?: string | undefined;
  RELAY_CLAUDE_CLOUD_AGENT_ID?: string | undefined;
  RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID?: string | undefined;
}): string {
  const missing = (['ANTHROPIC_API_KEY', 'RELAY_CLAUDE_CLOUD_AGENT_ID', 'RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID'] as const).filter(
    (name) => settings[name] === undefined,
  );
  return missing.length === 0
    ? ''
    : `Claude Cloud needs an Anthropic API key, a Managed Agents agent and a cloud environment: ${missing.join(', ')} not configured`;
}

type CloudEvent = BetaManagedAgentsStreamSessionEvents | BetaManagedAgentsSessionEvent;

/** Where a turn is, for a replica that takes it over: the cloud session, the message sent there, the cost before it. */
interface CloudPoint {
  cloudSession: string;
  message: string;
  costUsdBefore: number;
}

/** The events a turn reads: those already written after its message (a turn taken over), then the live ones. */
interface TurnEvents {
  earlier: readonly CloudEvent[];
  live: AsyncIterable<CloudEvent>;
}

/** One turn's tally. */
interface Tally {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** The session's cumulative list cost in USD at its last usage snapshot; undefined until one came. */
  listCostUsd: number | undefined;
  /** The last session.error's message. */
  lastError: string;
  /** The tool calls confirmed in the turn (by this replica or, before a hand-over, another). */
  confirmed: Set<string>;
}

export class ClaudeCloudProvider implements Provider {
  readonly id = 'claude-cloud';
  /** A running turn takes no text here; a message queues for the next turn. */
  readonly canSteer = false;
  readonly #o: ClaudeCloudOptions;

  constructor(options: ClaudeCloudOptions) {
    this.#o = options;
  }

  availability(): Availability {
    const reason = claudeCloudMissing({
      ANTHROPIC_API_KEY: this.#o.apiKey,
      RELAY_CLAUDE_CLOUD_AGENT_ID: this.#o.agentId,
      RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: this.#o.environmentId,
    });
    return { available: reason === '', reason };
  }

  listModels(): Promise<string[] | undefined> {
    return Promise.resolve([...this.#o.models]);
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const why = this.availability();
    if (!why.available) throw new TurnFailed(`Claude Cloud is not available on this relay: ${why.reason}`);
    const client = new Anthropic({ apiKey: this.#o.apiKey, baseURL: this.#o.baseUrl ?? null });
    const tally: Tally = { text: '', inputTokens: 0, outputTokens: 0, listCostUsd: undefined, lastError: '', confirmed: new Set() };
    const following = new AbortController();
    let remote: CloudPoint | undefined;
    let interrupted: Promise<void> | undefined;
    // Stop: the API's interrupt, then the turn ends without waiting for the cloud session to go idle. Handed over,
    // the turn goes on in the cloud for the replica that takes it.
    const onAbort = () => {
      if (remote === undefined || isHandedOver(input.signal)) return following.abort();
      interrupted = client.beta.sessions.events
        .send(remote.cloudSession, { events: [{ type: 'user.interrupt' }] }, { timeout: STOP_GRACE_MS, maxRetries: 0 })
        .then(
          () => undefined,
          (error: unknown) => this.#o.logger.warn({ err: error }, 'could not interrupt the Claude Cloud session'),
        )
        .finally(() => following.abort());
    };
    try {
      const taken = pointOf(input.resume);
      // The stream carries only what happens after it opens: open it before the message goes, or the history is read.
      const started =
        taken === undefined
          ? await this.#send(client, input, following.signal)
          : { point: taken, events: await this.#readBack(client, input, taken, following.signal) };
      remote = started.point;
      // From here the cloud runs the turn: a stop interrupts it, at once when it came meanwhile.
      input.signal.addEventListener('abort', onAbort, { once: true });
      if (input.signal.aborted) onAbort();
      await this.#follow(client, remote, started.events, input, tally);
      input.signal.throwIfAborted();
      return { text: tally.text, model: input.session.model };
    } catch (error) {
      if (input.signal.aborted) throw input.signal.reason;
      if (error instanceof TurnFailed) throw error;
      throw new TurnFailed(`Claude Cloud: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      input.signal.removeEventListener('abort', onAbort);
      if (interrupted !== undefined) await interrupted;
      following.abort();
      // A turn handed over is accounted whole by the replica that ends it.
      if (remote !== undefined && !isHandedOver(input.signal)) await this.#account(input, remote, tally);
    }
  }

  /** Opens the session's cloud session and its event stream, and sends the message: where the turn is, and its events. */
  async #send(client: Anthropic, input: TurnInput, following: AbortSignal): Promise<{ point: CloudPoint; events: TurnEvents }> {
    const opened = await this.#openSession(client, input);
    input.signal.throwIfAborted();
    const live = await client.beta.sessions.events.stream(opened.id, {}, { signal: following });
    const sent = await client.beta.sessions.events.send(opened.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: opened.text }] }] });
    const point = { cloudSession: opened.id, message: sent.data?.[0]?.id ?? '', costUsdBefore: opened.costUsdBefore };
    // Without the message's id, the events after it cannot be told: such a turn ends with its replica.
    if (point.message !== '') await input.emit({ type: 'resume_point', point: { ...point }, parked: false });
    return { point, events: { earlier: [], live } };
  }

  /** A turn taken over: the live stream (opened first, so nothing falls between), and what was written after its message. */
  async #readBack(client: Anthropic, input: TurnInput, point: CloudPoint, following: AbortSignal): Promise<TurnEvents> {
    // relay_tool goes on with this replica's token for the session.
    await passToken(client, (await client.beta.sessions.retrieve(point.cloudSession)).metadata, input.token);
    const live = await client.beta.sessions.events.stream(point.cloudSession, {}, { signal: following });
    const earlier: CloudEvent[] = [];
    let after = false;
    for await (const event of client.beta.sessions.events.list(point.cloudSession, { order: 'asc' }, { signal: following })) {
      if (after) earlier.push(event);
      else after = event.id === point.message;
    }
    if (!after) throw new TurnFailed('Claude Cloud: the message this turn sent is no longer in its cloud session');
    return { earlier, live };
  }

  /**
   * The session's cloud session: the one kept for it while the API still has it (a turn the relay lost mid-way is
   * interrupted first), else a new one, told the relay's record of the conversation so far. Its id is kept at once.
   */
  async #openSession(client: Anthropic, input: TurnInput): Promise<{ id: string; costUsdBefore: number; text: string }> {
    const { session, message } = input;
    const kept = await this.#o.states.get(session.id);
    if (kept !== undefined) {
      const existing = await client.beta.sessions.retrieve(kept.resumeId).catch((error: unknown) => {
        if (error instanceof Anthropic.NotFoundError) return undefined;
        throw error;
      });
      if (existing !== undefined && existing.status !== 'terminated' && existing.archived_at === null) {
        if (existing.status === 'running' || existing.status === 'rescheduling')
          await client.beta.sessions.events.send(existing.id, { events: [{ type: 'user.interrupt' }] });
        await passToken(client, existing.metadata, input.token);
        return { id: existing.id, costUsdBefore: kept.costUsdTotal, text: message.text };
      }
    }
    const vault = await this.#vault(client, input);
    const created = await client.beta.sessions.create(this.#sessionParams(session, vault), { signal: input.signal });
    await this.#o.states.set(session.id, { resumeId: created.id, costUsdTotal: 0 });
    const earlier = await this.#o.history(session.id, message.id);
    return { id: created.id, costUsdBefore: 0, text: withEarlierConversation(earlier, message.text) };
  }

  /** With relay_tool: a vault of the cloud session's own, holding the session's token for the gateway's /mcp. */
  async #vault(client: Anthropic, input: TurnInput): Promise<RelayToolVault | undefined> {
    if (this.#o.mcpUrl === undefined) return undefined;
    const vault = await client.beta.vaults.create({ display_name: `relay session ${input.session.id}` });
    const credential = await client.beta.vaults.credentials.create(vault.id, {
      auth: { type: 'static_bearer', token: input.token, mcp_server_url: this.#o.mcpUrl },
    });
    return { url: this.#o.mcpUrl, vault: vault.id, credential: credential.id };
  }

  #sessionParams(session: RunnableSession, vault: RelayToolVault | undefined): SessionCreateParams {
    const { repo = '', branch = '' } = session;
    return {
      agent: {
        type: 'agent_with_overrides',
        id: this.#o.agentId!,
        model: session.model,
        ...(vault === undefined ? {} : { mcp_servers: [{ type: 'url', name: RELAY_MCP_SERVER, url: vault.url }] }),
        tools: [
          { type: 'agent_toolset_20260401', default_config: { enabled: true, permission_policy: { type: 'always_ask' } } },
          ...(vault === undefined
            ? []
            : [
                {
                  type: 'mcp_toolset' as const,
                  mcp_server_name: RELAY_MCP_SERVER,
                  default_config: { enabled: true, permission_policy: { type: 'always_allow' as const } },
                },
              ]),
        ],
      },
      environment_id: this.#o.environmentId!,
      title: session.title,
      metadata: { relay_session: session.id, ...(vault === undefined ? {} : { relay_vault: vault.vault, relay_credential: vault.credential }) },
      ...(vault === undefined ? {} : { vault_ids: [vault.vault] }),
      resources:
        repo === ''
          ? []
          : [
              {
                type: 'github_repository',
                url: `https://github.com/${repo}`,
                checkout: branch === '' ? null : { type: 'branch', name: branch },
                ...(this.#o.githubToken === undefined ? {} : { authorization_token: this.#o.githubToken }),
              },
            ],
      ...(this.#o.budgetUsd === undefined
        ? {}
        : { budget: { type: 'limit', max_list_cost: { amount: String(Math.round(this.#o.budgetUsd * 100)), currency: 'USD' } } }),
    };
  }

  /**
   * Reads the turn's events (each once) until the session is idle at the turn's end; confirms its tool calls on the
   * owner's cards. The calls confirmed in what was written before are known first, so none is confirmed twice.
   */
  async #follow(client: Anthropic, point: CloudPoint, events: TurnEvents, input: TurnInput, tally: Tally): Promise<void> {
    const asked = new Map<string, ToolUse>();
    const seen = new Set<string>();
    for (const event of events.earlier) if (event.type === 'user.tool_confirmation') tally.confirmed.add(event.tool_use_id);
    for await (const event of concat(events.earlier, events.live)) {
      if ('id' in event && typeof event.id === 'string') {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
      }
      switch (event.type) {
        case 'agent.message': {
          const delta = event.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
          tally.text += delta;
          if (delta !== '') await input.emit({ type: 'text', delta });
          break;
        }
        case 'agent.tool_use':
        case 'agent.mcp_tool_use':
          await input.emit({
            type: 'tool_call',
            name: event.type === 'agent.mcp_tool_use' ? `${event.mcp_server_name}/${event.name}` : event.name,
            input: event.input,
          });
          if (event.evaluated_permission === 'ask') asked.set(event.id, event);
          break;
        case 'span.model_request_end':
          tally.inputTokens += event.model_usage.input_tokens;
          tally.outputTokens += event.model_usage.output_tokens;
          break;
        case 'session.usage':
          if (event.usage.list_cost?.currency === 'USD') tally.listCostUsd = Number(event.usage.list_cost.amount) / 100;
          break;
        case 'session.error':
          tally.lastError = event.error.message;
          break;
        case 'session.status_terminated':
          throw new TurnFailed(`Claude Cloud: the cloud session ended${tally.lastError === '' ? '' : `: ${tally.lastError}`}`);
        case 'session.status_idle':
          if (event.stop_reason.type === 'requires_action') {
            await this.#confirm(client, point, event.stop_reason.event_ids, asked, input, tally);
            break;
          }
          endTurn(event, tally);
          return;
        default:
          break;
      }
    }
    input.signal.throwIfAborted();
    throw new TurnFailed('Claude Cloud: the event stream closed before the turn ended');
  }

  /**
   * Each tool call the session waits on, as the owner's card (raised under the call's id: the same card on any
   * replica); the decision goes back as the API's tool confirmation. The turn is parked while a card waits.
   */
  async #confirm(client: Anthropic, point: CloudPoint, ids: readonly string[], asked: Map<string, ToolUse>, input: TurnInput, tally: Tally): Promise<void> {
    for (const id of ids.filter((waiting) => !tally.confirmed.has(waiting))) {
      const use = asked.get(id);
      const card = use === undefined ? undefined : toolCard(input.session, use);
      if (point.message !== '') await input.emit({ type: 'resume_point', point: { ...point }, parked: true });
      // A call the relay did not see ask (or cannot show whole) is never allowed.
      const allowed = card !== undefined && (await askOwner(input, this.#o.cards, card, this.#o.logger, `${input.message.id}:${id}`));
      await client.beta.sessions.events.send(point.cloudSession, {
        events: [
          allowed
            ? { type: 'user.tool_confirmation', tool_use_id: id, result: 'allow' }
            : { type: 'user.tool_confirmation', tool_use_id: id, result: 'deny', deny_message: 'The user did not allow this on the relay: it did not run.' },
        ],
      });
      tally.confirmed.add(id);
      if (point.message !== '') await input.emit({ type: 'resume_point', point: { ...point }, parked: false });
    }
  }

  /** Records the turn's tokens and cost, and keeps the session's cumulative cost for the next turn's. */
  async #account(input: TurnInput, remote: CloudPoint, tally: Tally): Promise<void> {
    const costUsd = tally.listCostUsd === undefined ? null : Math.max(0, tally.listCostUsd - remote.costUsdBefore);
    if (tally.listCostUsd !== undefined) {
      await this.#o.states
        .set(input.session.id, { resumeId: remote.cloudSession, costUsdTotal: tally.listCostUsd })
        .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'could not keep the Claude Cloud session’s cost'));
    }
    if (tally.inputTokens + tally.outputTokens > 0 || (costUsd ?? 0) > 0) {
      await recordTurnUsage(this.#o.usage, this.id, input, { inputTokens: tally.inputTokens, outputTokens: tally.outputTokens, costUsd }, this.#o.logger);
    }
  }
}

/** relay_tool's URL for a cloud session, the vault holding the session's token for it, and the credential in it. */
interface RelayToolVault {
  url: string;
  vault: string;
  credential: string;
}

/** Puts the token of the worker that runs the turn into the cloud session's vault, where it has one (relay_tool). */
async function passToken(client: Anthropic, metadata: Readonly<Record<string, string>>, token: string): Promise<void> {
  const { relay_vault: vault, relay_credential: credential } = metadata;
  if (vault === undefined || credential === undefined) return;
  await client.beta.vaults.credentials.update(credential, { vault_id: vault, auth: { type: 'static_bearer', token } });
}

/** The resume point a turn was handed over with, when it is this provider's. */
function pointOf(resume: ResumePoint | undefined): CloudPoint | undefined {
  if (resume === undefined) return undefined;
  const { cloudSession, message, costUsdBefore } = resume;
  if (typeof cloudSession !== 'string' || typeof message !== 'string' || typeof costUsdBefore !== 'number')
    throw new TurnFailed('Claude Cloud: the turn was handed over with a resume point it cannot read');
  return { cloudSession, message, costUsdBefore };
}

/** The events written before, then the live ones. */
async function* concat(earlier: readonly CloudEvent[], live: AsyncIterable<CloudEvent>): AsyncIterable<CloudEvent> {
  yield* earlier;
  yield* live;
}

/** How an idle session ended the turn: done (end_turn, or a refusal with its explanation), or failed. */
function endTurn(event: BetaManagedAgentsSessionStatusIdleEvent, tally: Tally): void {
  const reason = event.stop_reason.type;
  if (reason === 'end_turn') return;
  if (reason === 'refusal') {
    if (tally.text === '') tally.text = `Claude declined to answer${event.stop_details?.explanation ? `: ${event.stop_details.explanation}` : '.'}`;
    return;
  }
  if (reason === 'budget_reached')
    throw new TurnFailed("Claude Cloud: the session's budget is used up (RELAY_CLAUDE_CLOUD_BUDGET_USD); nothing more runs in it");
  throw new TurnFailed(`Claude Cloud: a model request failed and was not retried${tally.lastError === '' ? '' : `: ${tally.lastError}`}`);
}
