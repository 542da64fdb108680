/**
 * Budgets over delegation trees as relay_tool shows them (docs/adr/0039-tree-budgets.md): the note an agent's result
 * carries while a budget over its tree is at 80 % or more; what a session started from a paired relay spent, which
 * this relay reports back in the result of the call that prompted it, or when that relay asks (usage with tree and
 * session); and, on the relay the tree started on, those reports asked for before the tree's budget is checked.
 */
import type { RemoteTreeSession } from '@relay/proto/relay/session/v1/session_service';
import { z } from 'zod';
import { nothingOf } from '../../domain/action-traits.ts';
import { asBudgetArgument, budgetArgument, narrowestLimits } from '../../domain/budget-argument.ts';
import { toolError } from '../../domain/errors.ts';
import type { Success } from '../../domain/result.ts';
import type { ToolArguments } from '../../domain/tool-arguments.ts';
import type { ActionContext } from './action-context.ts';
import { budgetNote, treeUsageView } from '../views/tree-usage-view.ts';
import type { PairingClient, SessionClient } from '../ports.ts';

/** `result` with budgetNote when a budget over the caller's tree is at 80 % or more, reached or ended. */
export async function withBudgetNote(result: Success, sessions: SessionClient, caller: { userId: string; sessionId: string }): Promise<Success> {
  if (caller.sessionId === '') return result;
  // Only the budgets over the tree: with none, one read of the conversation's ancestors.
  const { usage } = await sessions.getTreeUsage({ userId: caller.userId, sessionId: caller.sessionId, budgetsOnly: true });
  const note = budgetNote(treeUsageView(usage));
  return note === undefined ? result : { ...result, budgetNote: note };
}

/**
 * `result` with treeSpent: what the tree under `sessionId` (a session a paired relay's agent started or prompts here)
 * spent by this relay's ledger, so the calling relay counts it against the budget over its own tree.
 */
export async function withTreeSpent(
  result: Success,
  sessions: SessionClient,
  input: { userId: string; sessionId: string; startedByRelay?: string },
): Promise<Success> {
  const { usage } = await sessions.getTreeUsage(input);
  const view = treeUsageView(usage);
  return { ...result, treeSpent: { session: input.sessionId, sessionsStarted: view.sessionsStarted, totals: view.totals, rows: view.rows } };
}

const ReportedRow = z.object({
  session: z.string(),
  provider: z.string(),
  turns: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});
const TreeSpent = z.object({ session: z.string(), sessionsStarted: z.number(), rows: z.array(ReportedRow) });

/** How long a paired relay may take to report a tree's spend there; past it, its last report stands. */
const REPORT_SECONDS = 10;

/** What asks the paired relays for their part of a tree's spend. */
export interface RemoteSpendReaders {
  sessions: SessionClient;
  pairing: PairingClient;
  relayName: string;
}

/**
 * Asks each paired relay where the tree of the outermost budget over `caller`'s conversation started sessions what
 * their trees spent there by now (usage with tree and session: that relay checks the pairing and its level as for any
 * read, and answers only for a session this relay's agents started there), and keeps each report, which checks the
 * budgets here. A relay that does not answer, or refuses, leaves its last report (its own side enforces the budget
 * carried to it). The sessions the tree started there (none when the session cannot be read, or no budget governs it:
 * then it costs one read of the session's budgets, and asks no relay).
 */
export async function refreshRemoteSpend(readers: RemoteSpendReaders, caller: { userId: string; sessionId: string }): Promise<RemoteTreeSession[]> {
  // A session that cannot be read refuses the call that names it on its own, with that call's words.
  const remote = await readers.sessions.getBudgetedRemoteSessions(caller).then(
    (answer) => answer.remoteSessions,
    () => [],
  );
  await Promise.all(remote.map((session) => fetchReport(readers, caller.userId, session)));
  return remote;
}

async function fetchReport(readers: RemoteSpendReaders, userId: string, remote: RemoteTreeSession): Promise<void> {
  const { relayName } = readers;
  try {
    const answer = await readers.pairing.forwardToolCall(
      {
        relay: remote.relay,
        action: 'usage',
        argumentsJson: JSON.stringify({ relay: 'this', tree: true, session: remote.sessionId }),
        provenance: { originRelay: relayName, originSessionId: remote.startedBySessionId, originSessionTitle: '', model: '', hops: 1, viaRelays: [relayName] },
        timeoutSeconds: REPORT_SECONDS,
        allowed: false,
        dryRun: false,
      },
      { deadlineMs: REPORT_SECONDS * 2000 },
    );
    await keepReport(readers.sessions, JSON.parse(answer.resultJson) as Record<string, unknown>, remote.relay, {
      userId,
      sessionId: remote.startedBySessionId,
    });
  } catch {
    // Offline, or a report that could not be kept: the last one counts until the next check asks again.
  }
}

/**
 * Before a prompt goes to a paired relay: asks the paired relays for the tree's spend there (refreshRemoteSpend), then
 * refuses the prompt when a budget over the caller's tree holds it (or, for a new session, the tree started all it
 * may), else answers the budget argument the call carries there — the tightest of the agent's own and what each
 * budget over the tree leaves; undefined when neither is. That relay enforces it there. A `send` carries it only into
 * the tree: to a session the tree started on that relay. The agent's own budget narrows only a session its
 * conversation started (REMOTE_RELAY_INVALID_INPUT, as on this relay); to any other session the call carries none,
 * and that session's spend is not the tree's.
 */
export async function carriedBudget(
  args: ToolArguments,
  context: ActionContext,
  target: { relay: string; startsSession: boolean },
): Promise<Record<string, number> | undefined> {
  const { caller, sessions } = context;
  const remote = await refreshRemoteSpend(context, caller);
  const { carried } = await sessions.checkTreeBudget({ userId: caller.userId, sessionId: caller.sessionId, startsSession: target.startsSession });
  const nothing = nothingOf(context.action);
  const asked = budgetArgument(args.budget, nothing);
  if (!target.startsSession) {
    const started = remote.find((session) => session.relay === target.relay && session.sessionId === args.session);
    if (asked !== undefined && started?.startedBySessionId !== caller.sessionId) {
      throw toolError(
        'REMOTE_RELAY_INVALID_INPUT',
        `budget narrows only a session this conversation started; the person sets the others’ budgets. ${nothing}`,
        {
          field: 'budget',
        },
      );
    }
    if (started === undefined) return undefined;
  }
  const limits = narrowestLimits(asked, carried);
  return limits === undefined ? undefined : asBudgetArgument(limits);
}

/**
 * Keeps what the paired relay reported a session this conversation started there has spent (treeSpent in its
 * result), so it counts in this conversation's tree; a result without a report, or from another relay's version
 * that sends none, changes nothing.
 */
export async function noteReportedSpend(result: Record<string, unknown>, relay: string, context: ActionContext): Promise<void> {
  await keepReport(context.sessions, result, relay, context.caller);
}

async function keepReport(
  sessions: SessionClient,
  result: Record<string, unknown>,
  relay: string,
  conversation: { userId: string; sessionId: string },
): Promise<void> {
  const report = TreeSpent.safeParse(result.treeSpent);
  if (result.ok !== true || !report.success) return;
  await sessions.noteRemoteTreeSpend({
    userId: conversation.userId,
    sessionId: conversation.sessionId,
    relay,
    remoteSessionId: report.data.session,
    rows: report.data.rows.map(({ session, ...row }) => ({ ...row, sessionId: session, relay })),
    sessionsStarted: report.data.sessionsStarted,
  });
}
