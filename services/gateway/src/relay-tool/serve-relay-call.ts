/**
 * The receiving side of a paired relay's relay_tool call (POST /relay/v1/tool): this relay applies its own
 * rules and answers. The call acts for the local user who owns the pairing, and its prompts carry the
 * caller's provenance (the session service starts them with the "Remote prompt" line). The "Accept prompts
 * from other relays' agents" switch, when off, refuses what could change or watch anything here; reads work.
 * Cards and the loop guard belong to the calling conversation, which the calling relay has already passed.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { INTERNAL_CODE } from '@relay/errors';
import { Attr, tracer, type Logger } from '@relay/telemetry';
import type { PairingOwner, Provenance, QuestionOwner, RelayCaller, SessionOwner, SubscriptionOwner } from '../ports.ts';
import type { Action, ActionContext } from './action-context.ts';
import type { ActionName } from './action-table.ts';
import { createdResult, sessionChoices, startedWith } from './actions/create-session.ts';
import { listSessions } from './actions/list-sessions.ts';
import { readSession } from './actions/read-session.ts';
import { readTaskOutput } from './actions/read-task-output.ts';
import { relayInfo } from './actions/relay-info.ts';
import { usage } from './actions/usage.ts';
import { settingsChange, settingsView, result as updateResult } from './actions/update-session.ts';
import { parseAction, parseArguments, requireArguments, type ToolArguments } from './arguments.ts';
import { awaitTurn } from './await-turn.ts';
import { toolError } from './errors.ts';
import { readRelayState } from './read-relay-state.ts';
import { resolveRelay } from './relay-name.ts';
import { refusalFrom, success, type Success, type ToolResult } from './result.ts';
import { shortId, turnFields, turnPhrase } from './turn-result.ts';
import { planWait } from './wait-seconds.ts';

/** A paired relay's call as it arrives: who calls, and the provenance it carries. */
export interface RelayCallOrigin extends RelayCaller {
  provenance: Provenance;
  /** The user allowed the change on a card in the calling conversation. */
  allowed: boolean;
  /** Only check the call (before the calling relay shows a card); nothing changes. */
  dryRun: boolean;
}

export interface RelayCallDeps {
  relayName: string;
  openUrlBase: string | undefined;
  sessions: SessionOwner;
  pairing: PairingOwner;
  questions: QuestionOwner;
  subscriptions?: SubscriptionOwner;
  logger: Logger;
}

/** What the "Accept prompts from other relays' agents" switch refuses when it is off (decisions.md, Agents may). */
export const PROMPTING_ACTIONS: ReadonlySet<ActionName> = new Set([
  'send',
  'create_session',
  'update_session',
  'answer_question',
  'stop',
  'archive',
  'subscribe',
  'ask',
]);

type RemoteAction = (args: ToolArguments, context: ActionContext, origin: RelayCallOrigin) => Promise<Success>;

const reuse = (action: Action): RemoteAction => (args, context) => action(args, context);

/** The actions another relay's agents may call here. Subscriptions, asks and schedules are answered elsewhere or refused. */
const REMOTE_ACTIONS: Partial<Record<ActionName, RemoteAction>> = {
  relay_info: reuse(relayInfo),
  usage: reuse(usage),
  list_sessions: reuse(listSessions),
  read_session: reuse(readSession),
  read_task_output: reuse(readTaskOutput),
  wait: remoteWait,
  send: remoteSend,
  create_session: remoteCreateSession,
  stop: remoteStop,
  archive: remoteArchive,
  answer_question: remoteAnswerQuestion,
  update_session: remoteUpdateSession,
};

/** Runs one call from a paired relay and answers its result; nothing thrown escapes. One span per call. */
export function serveRelayCall(input: unknown, origin: RelayCallOrigin, deps: RelayCallDeps, signal: AbortSignal): Promise<ToolResult> {
  return tracer('gateway').startActiveSpan('relay_tool from paired relay', { attributes: { [Attr.USER_ID]: origin.userId } }, async (span) => {
    let result: ToolResult;
    let ignored: string[] = [];
    try {
      const call = parseAction(input);
      span.updateName(`relay_tool ${call.action} from paired relay`);
      span.setAttribute(Attr.TOOL_ACTION, call.action);
      const parsed = parseArguments(call);
      ignored = parsed.ignored;
      const { settings, paired } = await readRelayState(deps);
      if (resolveRelay(parsed.args.relay, deps.relayName, paired).kind !== 'this') {
        throw toolError('REMOTE_RELAY_UNSUPPORTED', `Relay "${deps.relayName}" does not pass calls on to other relays; call that relay directly.`);
      }
      if (!origin.acceptPrompts && PROMPTING_ACTIONS.has(call.action)) {
        throw toolError(
          'REMOTE_RELAY_PERMISSION',
          `Relay "${deps.relayName}" does not accept prompts from other relays' agents (Settings → Relays), so ${call.action} is refused there. Listing and reading sessions, reading task output, waiting, relay_info and usage still work.`,
        );
      }
      const action = REMOTE_ACTIONS[call.action];
      if (action === undefined) {
        throw toolError('REMOTE_RELAY_UNSUPPORTED', `Relay "${deps.relayName}" does not take ${call.action} from another relay's agents.`);
      }
      const context: ActionContext = {
        // The calling conversation lives on the other relay; here the call acts for the pairing's owner, and the
        // reads reused from this relay's actions use only the user.
        caller: { userId: origin.userId, sessionId: '' },
        relayName: deps.relayName,
        openUrlBase: deps.openUrlBase,
        // A paired relay's agents reach this relay's sessions whether or not this relay's own agents may.
        settings: { ...settings, agentSessionsEnabled: true },
        paired,
        sessions: deps.sessions,
        pairing: deps.pairing,
        questions: deps.questions,
        subscriptions: deps.subscriptions,
        signal,
        progress: async () => undefined,
      };
      result = await action(parsed.args, context, origin);
    } catch (error) {
      result = refusalFrom(error);
      if (result.code === INTERNAL_CODE) {
        deps.logger.error({ err: error, relay: origin.relayName }, 'relay_tool call from a paired relay failed');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    if (!result.ok) span.setAttribute(Attr.TOOL_CODE, result.code);
    span.end();
    return ignored.length > 0 ? { ...result, ignored } : result;
  });
}

async function remoteSend(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('send', args, ['session', 'text']);
  const plan = planWait('send', args.wait_seconds, context.settings.maxWaitSeconds);
  const { sessions, relayName } = context;
  const userId = origin.userId;
  const message = { userId, sessionId: args.session, text: args.text, provider: args.provider, model: args.model, effort: args.effort, mode: args.mode, provenance: origin.provenance };
  if (origin.dryRun) {
    const checked = await sessions.sendMessage({ ...message, dryRun: true });
    return checkedOnly('send', relayName, { session: checked.session.id, ...(checked.modelNote ? { modelNote: checked.modelNote } : {}) });
  }
  const sent = await sessions.sendMessage({ ...message, dryRun: false });
  const result = await awaitTurn({ userId, sessionId: sent.session.id, messageId: sent.messageId, waitSeconds: plan.waitSeconds }, context);
  const billing = sent.billingSwitch ? ` (billing switched to ${sent.billingSwitch})` : '';
  return success(
    `send → ${relayName} session ${shortId(sent.session.id)}: ${turnPhrase(result)}${billing}`,
    {
      ...turnFields(result, context.openUrlBase),
      ...(sent.billingSwitch ? { billing: sent.billingSwitch } : {}),
      ...(sent.modelNote ? { modelNote: sent.modelNote } : {}),
      ...(plan.note ? { note: plan.note } : {}),
    },
    relayName,
  );
}

async function remoteWait(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('wait', args, ['session', 'message_id']);
  const plan = planWait('wait', args.wait_seconds, context.settings.maxWaitSeconds);
  const result = await awaitTurn({ userId: origin.userId, sessionId: args.session, messageId: args.message_id, waitSeconds: plan.waitSeconds }, context);
  return success(
    `wait → ${context.relayName} session ${shortId(result.sessionId)}: ${turnPhrase(result)}`,
    { ...turnFields(result, context.openUrlBase), ...(plan.note ? { note: plan.note } : {}) },
    context.relayName,
  );
}

async function remoteCreateSession(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('create_session', args, ['text']);
  const plan = planWait('create_session', args.wait_seconds, context.settings.maxWaitSeconds);
  const { sessions, relayName } = context;
  const userId = origin.userId;
  // No calling session here: a session started from another relay goes into no group unless one is named.
  const request = { ...sessionChoices(args), userId, provenance: origin.provenance };
  if (origin.dryRun) {
    const checked = await sessions.createSession({ ...request, dryRun: true });
    return checkedOnly('create_session', relayName, { ...startedWith(checked.session), ...(checked.modelNote ? { modelNote: checked.modelNote } : {}) });
  }
  const created = await sessions.createSession({ ...request, dryRun: false });
  const result = await awaitTurn({ userId, sessionId: created.session.id, messageId: created.messageId, waitSeconds: plan.waitSeconds }, context);
  return createdResult(relayName, created, result, plan.note, context.openUrlBase);
}

async function remoteStop(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('stop', args, ['session']);
  if (origin.dryRun) return checkedOnly('stop', context.relayName, { session: (await context.sessions.readSession(origin.userId, args.session, 1)).session.id });
  const { stopRequested } = await context.sessions.stopTurn({ userId: origin.userId }, args.session);
  return success(
    `stop → ${context.relayName} session ${shortId(args.session)}: ${stopRequested ? 'stop requested' : 'nothing was running'}`,
    { session: args.session, stopRequested },
    context.relayName,
  );
}

async function remoteArchive(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('archive', args, ['session']);
  if (origin.dryRun) return checkedOnly('archive', context.relayName, { session: (await context.sessions.readSession(origin.userId, args.session, 1)).session.id });
  const session = await context.sessions.archiveSession({ userId: origin.userId }, args.session);
  return success(`archive → ${context.relayName} session ${shortId(session.id)} "${session.title}": archived`, { session: session.id, title: session.title, archived: true }, context.relayName);
}

/**
 * update_session from a paired relay: its conversation changes freely only a session this relay recorded it as
 * the starter of; any other needs the user's Allow, which that relay asks on a card in the calling conversation
 * (the refusal carries needsAllow, and the settings the session would have, for the card) and sends with the call again.
 */
async function remoteUpdateSession(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('update_session', args, ['session']);
  const change = settingsChange(args);
  const request = { userId: origin.userId, sessionId: args.session, change, remoteCaller: origin.provenance };
  const checked = await context.sessions.updateSession({ ...request, allowed: false, dryRun: true });
  if (checked.changed.length === 0) return updateResult(context.relayName, args.session, checked);
  if (checked.needsAllow && !origin.allowed) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `Relay "${context.relayName}" did not record this conversation as the starter of session ${shortId(args.session)}: changing it needs the user's Allow first. Nothing was changed.`,
      { needsAllow: true, settings: settingsView(checked.settings) },
    );
  }
  if (origin.dryRun) return { ...updateResult(context.relayName, args.session, checked), dryRun: true };
  const updated = await context.sessions.updateSession({ ...request, allowed: origin.allowed, dryRun: false });
  return updateResult(context.relayName, args.session, updated);
}

async function remoteAnswerQuestion(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments('answer_question', args, ['question_id']);
  if ((args.choices === undefined || args.choices.length === 0) && args.answer === undefined) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', 'answer_question: one of choices and answer is required. Nothing was answered.');
  }
  if (args.question_id.startsWith('ask_')) {
    throw toolError('REMOTE_RELAY_FORBIDDEN', `answer_question: ${args.question_id} is an ask; only the user answers asks. Nothing was answered.`);
  }
  const decision = {
    userId: origin.userId,
    cardId: args.question_id,
    decision: 'answer' as const,
    ...(args.answer === undefined ? {} : { answer: args.answer }),
    ...(args.choices === undefined ? {} : { choices: args.choices }),
    // An agent answers, so the question service refuses approval cards; no session here is the caller's own.
    agentSessionId: `relay:${origin.relayName}/${origin.provenance.originSessionId}`,
  };
  const checked = await context.questions.decideCard({ ...decision, dryRun: true });
  if (args.session !== undefined && checked.sessionId !== args.session) {
    throw toolError('REMOTE_RELAY_NOT_FOUND', `answer_question: no question ${args.question_id} is waiting in session ${args.session}. Nothing was answered.`);
  }
  if (origin.dryRun) return checkedOnly('answer_question', context.relayName, { session: checked.sessionId, question_id: checked.id });
  const card = await context.questions.decideCard({ ...decision, dryRun: false });
  return success(
    `answer_question → ${context.relayName} session ${shortId(card.sessionId)}: question ${card.id} answered`,
    { session: card.sessionId, question_id: card.id, status: card.status, answer: card.answer, choices: card.choices },
    context.relayName,
  );
}

/** The answer to a dry run: the call passed every check here, and nothing changed. */
function checkedOnly(action: ActionName, relayName: string, fields: Record<string, unknown>): Success {
  return success(`${action} → ${relayName}: checked, nothing changed yet`, { dryRun: true, ...fields }, relayName);
}
