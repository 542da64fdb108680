/**
 * create_session: starts a new session with its first prompt and waits for the reply. What the
 * agent leaves out follows the session it works in. Without group, the new session joins the
 * caller's group (or starts one headed by the caller); with group, that existing group. The session
 * service checks everything (model, group, limits, nesting) on a dry run before any card; the user
 * allows the first session a conversation starts, and every one in the ask and plan modes. When the
 * session did not land in the group asked for, the result has groupWarning, its summary ends with
 * "(no group: …)" and the note asks the agent to tell the user.
 */
import { CreateSessionRequest, CreateSessionResponse } from '@relay/proto/relay/session/v1/session_service';
import type { Session, TurnResult } from '@relay/proto/relay/session/v1/session';
import { groupOf } from '../../../domain/answers.ts';
import { groupView } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { madeBefore, madeOnce, type OutcomeCodec } from '../made-once.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { awaitTurn } from '../await-turn.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { createSessionCard } from '../../../domain/card-text.ts';
import { passLoopGuard } from '../pass-loop-guard.ts';
import { provenanceOf } from '../../../domain/provenance.ts';
import { checkedOnly, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId, turnFields, turnPhrase } from '../../views/turn-result.ts';
import { planWait } from '../../../domain/wait-seconds.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';
import type { SessionClient } from '../../ports.ts';
import { budgetArgument } from '../../../domain/budget-argument.ts';
import { refreshRemoteSpend, withBudgetNote, withTreeSpent } from '../tree-budget.ts';

export const createSession = defineAction({
  name: 'create_session',
  args: argumentsOf('relay', 'text', 'provider', 'model', 'cwd', 'repo', 'branch', 'mode', 'effort', 'title', 'group', 'wait_seconds', 'budget'),
  relay: 'required',
  write: true,
  nothing: 'Nothing was created.',
  refusesOthers: true,
  toPaired: {
    level: 'full',
    forwarded: true,
    sendsPrompt: true,
    startsSession: true,
    features: [
      {
        since: '0.9.16',
        applies: (args) => args.group !== undefined,
        refusal: "The target relay doesn't support groups on create_session yet: it runs OAR {version}; groups need 0.9.16. No session was created.",
      },
    ],
  },
  handler: runCreateSession,
  fromPaired: serveCreateSession,
});

async function runCreateSession(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['text']);
  const wait = planWait('create_session', args.wait_seconds, context.settings.maxWaitSeconds);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;

  const conversation = await getConversation(sessions, caller.sessionId);
  const request = { ...sessionChoices(args), userId: caller.userId, callerSessionId: caller.sessionId, provenance: provenanceOf(relay, conversation) };
  // A task taken over after its session was created goes on from there: the checks before it were passed.
  let created = madeBefore(context, 'create_session', CREATED);
  if (created === undefined) {
    // The session service refuses a start from a held tree: what the tree spent on paired relays is asked for first.
    await refreshRemoteSpend(context, caller);
    const checked = await startSession(sessions, { ...request, dryRun: true });
    if (needsCard({ mode: conversation.session.mode, writes: context.action.write, firstStartedByCaller: checked.firstStartedByCaller })) {
      await askApproval(createSessionCard(relay, checked.session, args.text), conversation, context);
    }
    await passLoopGuard(conversation, context, 'Nothing was created.');
    // Created once: a replica that takes a task over reads the session this call created.
    created = await madeOnce(context, 'create_session', () => startSession(sessions, { ...request, dryRun: false }), CREATED);
  }
  const result = await awaitTurn(
    { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: created.session.id, messageId: created.messageId, waitSeconds: wait.waitSeconds },
    context,
  );
  return withBudgetNote(createdResult(relay, created, result, wait.note, context.openUrlBase), sessions, caller);
}

/** What the agent chose for the new session, as the session service takes it (from this relay's agent or another's). */
export function sessionChoices(args: ToolArguments & { text: string }) {
  return {
    text: args.text,
    title: args.title,
    provider: args.provider,
    model: args.model,
    effort: args.effort,
    mode: args.mode,
    cwd: args.cwd,
    repo: args.repo,
    branch: args.branch,
    group: args.group,
    // This relay's extension: the new session's own budget, which only narrows the one over the caller's tree.
    budget: budgetArgument(args.budget, 'Nothing was created.'),
  };
}

type Created = CreateSessionResponse & { session: Session };

/** A session created, as a task's progress keeps it. */
const CREATED: OutcomeCodec<Created> = {
  toJSON: (created) => CreateSessionResponse.toJSON(created),
  fromJSON: (json) => {
    const created = CreateSessionResponse.fromJSON(json);
    return { ...created, session: answered(created.session, 'CreateSession', 'session') };
  },
};

/** CreateSession, its session always there; what the call leaves out follows the caller's session or the relay's defaults. */
async function startSession(sessions: SessionClient, request: Partial<CreateSessionRequest>): Promise<Created> {
  const created = await sessions.createSession(CreateSessionRequest.fromPartial(request));
  return { ...created, session: answered(created.session, 'CreateSession', 'session') };
}

/** create_session's result: the first turn, what the session was started with, and a group it did not land in. */
export function createdResult(relay: string, created: Created, result: TurnResult, waitNote: string | undefined, openUrlBase: string | undefined): Success {
  const { session } = created;
  const notes = [
    created.groupWarning && `The session was created but did not land in the group asked for: ${created.groupWarning} Tell the user; they can move it by hand.`,
    waitNote,
  ].filter(Boolean);
  const noGroup = created.groupWarning ? ` (no group: ${created.groupWarning})` : '';
  return success(
    `create_session → ${relay} session ${shortId(session.id)} "${session.title}": ${turnPhrase(result)}${noGroup}`,
    {
      ...turnFields(result, openUrlBase),
      ...startedWith(session),
      ...(created.groupWarning ? { groupWarning: created.groupWarning } : {}),
      ...(created.modelNote ? { modelNote: created.modelNote } : {}),
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
    },
    relay,
  );
}

/** What the session was started with: provider, model, mode, effort, title, repo/branch for a cloud session, group or null. */
export function startedWith(session: Session) {
  const group = groupOf(session);
  return {
    provider: session.provider,
    model: session.model,
    mode: session.mode,
    effort: session.effort,
    title: session.title,
    ...(session.repo ? { repo: session.repo, branch: session.branch } : {}),
    group: group ? groupView(group) : null,
  };
}

async function serveCreateSession(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['text']);
  const plan = planWait('create_session', args.wait_seconds, context.settings.maxWaitSeconds);
  const { sessions, relayName } = context;
  const userId = origin.userId;
  // No calling session here: a session started from another relay goes into no group unless one is named.
  const request = { ...sessionChoices(args), userId, provenance: origin.provenance };
  if (origin.dryRun) {
    const checked = await startSession(sessions, { ...request, dryRun: true });
    return checkedOnly('create_session', relayName, { ...startedWith(checked.session), ...(checked.modelNote ? { modelNote: checked.modelNote } : {}) });
  }
  const created = await startSession(sessions, { ...request, dryRun: false });
  const result = await awaitTurn(
    { userId, callerSessionId: '', sessionId: created.session.id, messageId: created.messageId, waitSeconds: plan.waitSeconds },
    context,
  );
  return withTreeSpent(createdResult(relayName, created, result, plan.note, context.openUrlBase), sessions, { userId, sessionId: created.session.id });
}
