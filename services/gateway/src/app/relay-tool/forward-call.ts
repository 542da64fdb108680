/**
 * A relay_tool call for a paired relay (DESIGN.md, Paired relay call): this relay checks the lock, the
 * level and the hop limit, then the card and loop guard as for this relay, and forwards the call through
 * the pairing service to the other relay's /relay/v1/tool with the prompt's provenance (hops + 1, this relay
 * appended to the chain of relays it came through). That
 * relay applies its own rules and answers; the result comes back with `relay` set to the target's name.
 */
import type { Provenance } from '@relay/proto/relay/session/v1/session';
import type { ActionContext } from './action-context.ts';
import { nothingOf } from '../../domain/action-traits.ts';
import type { ToolArguments } from '../../domain/tool-arguments.ts';
import { askApproval } from './ask-approval.ts';
import { needsCard } from '../../domain/card-policy.ts';
import type { CardText } from '../../domain/card-text.ts';
import { passLoopGuard } from './pass-loop-guard.ts';
import { checkPairedRelayCall } from '../../domain/paired-relay-policy.ts';
import { pairingView } from '../views/pairing-view.ts';
import { chainThrough, provenanceOf } from '../../domain/provenance.ts';
import type { ToolResult } from '../../domain/result.ts';
import { quoteStart } from '../../domain/one-line.ts';
import { requireVersion } from '../../domain/version.ts';
import { planWait } from '../../domain/wait-seconds.ts';
import type { ForwardToolCallRequest, PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { getConversation } from '../session-reads.ts';
import { carriedBudget, noteReportedSpend } from './tree-budget.ts';

/** How long any other forwarded call may take. */
const CALL_SECONDS = 30;
/** The way to the other relay and back, on top of the time it may take. */
const FORWARD_MARGIN_MS = 15_000;

/** Forwards `action` to `relay` once this relay's rules allow it; answers the other relay's result. */
export async function forwardCall(args: ToolArguments, relay: PairedRelay, context: ActionContext): Promise<ToolResult> {
  const { caller, sessions, action: definition } = context;
  const action = definition.name;
  const conversation = await getConversation(sessions, caller.sessionId);
  const prompting = definition.toPaired?.sendsPrompt === true;
  checkPairedRelayCall({
    action: definition,
    relay: pairingView(relay),
    unlocks: conversation.unlockedRelays,
    turnProvenance: conversation.turnProvenance,
    sendsPrompt: prompting,
  });
  requireVersion(definition, args, relay);
  // An action that waits for a turn: the forwarded call may take as long as the wait.
  const wait = Object.hasOwn(definition.args.shape, 'wait_seconds') ? planWait(action, args.wait_seconds, context.settings.maxWaitSeconds) : undefined;

  const local = provenanceOf(context.relayName, conversation);
  const provenance: Provenance = { ...local, hops: local.hops + 1, viaRelays: chainThrough(local.viaRelays, context.relayName) };
  // This relay's extension: a prompt carries the budget over the caller's tree (docs/adr/0039-tree-budgets.md).
  const budget = prompting ? await carriedBudget(args, context, { relay: relay.name, startsSession: definition.toPaired?.startsSession === true }) : undefined;
  const forwarded = { ...args, relay: 'this', ...(wait ? { wait_seconds: wait.waitSeconds } : {}), ...(budget ? { budget } : {}) };
  const timeoutSeconds = (wait?.waitSeconds ?? 0) + CALL_SECONDS;
  const call: ForwardToolCallRequest = {
    relay: relay.name,
    action,
    argumentsJson: JSON.stringify(forwarded),
    provenance,
    timeoutSeconds,
    allowed: false,
    dryRun: false,
  };
  // The other relay may take as long as its wait, plus the way there and back.
  const options = { deadlineMs: timeoutSeconds * 1000 + FORWARD_MARGIN_MS };
  const forward = (change: Pick<ForwardToolCallRequest, 'dryRun'>) =>
    keepAlive(context, relay.name, () => context.pairing.forwardToolCall({ ...call, ...change }, options));

  const nothing = nothingOf(definition);
  const toPaired = definition.toPaired;
  const firstStart = toPaired?.startsSession === true && conversation.startedSessions === 0;
  const carded = needsCard({ mode: conversation.session.mode, writes: definition.write, firstStartedByCaller: firstStart });
  if (carded || toPaired?.asksAllow === true) {
    // That relay checks the whole call first, so nobody is asked about a call it would refuse. For an action that
    // asksAllow it also says whether it recorded this conversation as the session's starter; if not, the user allows
    // it here, once per conversation and relay: the Allow is recorded and covers the conversation's later changes
    // there. That relay never takes this Allow for its own person's: it asks them on its own card (ask-person-here.ts).
    const checked = await forward({ dryRun: true });
    const needsAllow = toPaired?.asksAllow === true && checked.ok === false && checked.needsAllow === true;
    if (checked.ok !== true && !needsAllow) return shapeResult(checked, relay.name, wait?.note);
    const asksAllow = needsAllow && !conversation.updateAllowedRelays.includes(relay.name);
    // A call that would change nothing asks nobody.
    const changesNothing = toPaired?.asksAllow === true && checked.ok === true && Array.isArray(checked.changed) && checked.changed.length === 0;
    if (!changesNothing && (carded || asksAllow)) {
      const card = toPaired?.card?.({ args, checked, relay: relay.name, grantsAllow: asksAllow }) ?? remoteCard(action, args, relay.name, nothing);
      await askApproval(card, conversation, context);
      if (asksAllow) await sessions.noteRemoteUpdateAllowed({ sessionId: caller.sessionId, relay: relay.name });
    }
  }
  if (prompting) await passLoopGuard(conversation, context, nothing);
  const result = await forward({ dryRun: false });
  if (toPaired?.startsSession === true && result.ok === true && typeof result.session === 'string') {
    // Counted among the sessions this conversation started, so the first-session card is not asked again.
    await sessions.noteRemoteSessionStarted({ sessionId: caller.sessionId, relay: relay.name, remoteSessionId: result.session });
  }
  // What a session this conversation started there spent, as that relay reports it: counted in this tree.
  await noteReportedSpend(result, relay.name, context);
  return shapeResult(result, relay.name, wait?.note);
}

/** How often the agent hears that a forwarded call is still at work, so a short tool timeout does not end it. */
const PROGRESS_EVERY_MS = 15_000;

/** Runs the forwarded call, telling the agent it is still at work (MCP progress) while the other relay answers. */
async function keepAlive(context: ActionContext, relay: string, call: () => Promise<{ resultJson: string }>): Promise<Record<string, unknown>> {
  const startedAt = Date.now();
  const timer = setInterval(() => {
    context.progress(`waiting for relay ${relay}: ${Math.round((Date.now() - startedAt) / 1000)} s`).catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  try {
    return JSON.parse((await call()).resultJson) as Record<string, unknown>;
  } finally {
    clearInterval(timer);
  }
}

/** The other relay's result, with `relay` set to the target's name as paired here, and this relay's wait note. */
function shapeResult(result: Record<string, unknown>, relay: string, note: string | undefined): ToolResult {
  const { needsAllow: _needsAllow, ...rest } = result;
  if (rest.ok !== true) {
    return {
      ...rest,
      ok: false,
      code: typeof rest.code === 'string' ? rest.code : 'REMOTE_RELAY_INTERNAL',
      error: typeof rest.error === 'string' ? rest.error : `Relay "${relay}" refused the call.`,
    };
  }
  const notes = [rest.note, note].filter((part): part is string => typeof part === 'string' && part !== '');
  return {
    ...rest,
    ok: true,
    relay,
    summary: typeof rest.summary === 'string' ? rest.summary : `${relay}: done`,
    ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
  };
}

/** The card for a forwarded call whose action has none of its own: it lists the call's arguments. */
function remoteCard(action: string, args: ToolArguments, relay: string, nothing: string): CardText {
  const lines = [
    args.session && `Session: ${args.session}`,
    args.title && `Title: ${args.title}`,
    args.provider && `Provider: ${args.provider}`,
    args.model && `Model: ${args.model}`,
    args.text && `Prompt: ${quoteStart(args.text, 200)}`,
  ].filter((line): line is string => typeof line === 'string' && line !== '');
  const what = action.replace('_', ' ');
  return { title: `${what[0]!.toUpperCase()}${what.slice(1)} on relay ${relay}`, lines, asked: `${what} on relay ${relay}`, nothing };
}
