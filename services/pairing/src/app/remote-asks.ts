/**
 * The use cases of asks kept on a paired relay (domain/remote-asks.ts): open one there, withdraw it, poll it.
 */
import { invalidInput } from '../domain/errors.ts';
import { planAskPoll, type AskPollIntervals, type NewRemoteAsk, type PollPlan, type PolledAsk, type RemoteAskView } from '../domain/remote-asks.ts';
import type { Clock, RemoteAnswerSink, RemoteAskStore, RemoteAsksLine } from './remote-ports.ts';

/** Keeps the ask on `relay` (a dry run only checks there) and, unless a dry run, starts polling it. */
export async function openRemoteAsk(relay: string, ask: NewRemoteAsk, deps: { line: RemoteAsksLine; asks: RemoteAskStore }, now: Date): Promise<RemoteAskView> {
  if (ask.aboutSessionId === '') throw invalidInput('An ask on a paired relay names the session there it is about.');
  const kept = await deps.line.open(relay, ask);
  if (!ask.dryRun) await deps.asks.keep({ relay, id: kept.id, userId: ask.userId, askingSessionId: ask.askingSessionId, online: true }, now);
  return kept;
}

/** Takes back an ask there and stops polling it. */
export async function withdrawRemoteAsk(
  relay: string,
  askingSessionId: string,
  id: string,
  deps: { line: RemoteAsksLine; asks: RemoteAskStore },
): Promise<RemoteAskView> {
  const withdrawn = await deps.line.withdraw(relay, askingSessionId, id);
  await deps.asks.drop(relay, id);
  return withdrawn;
}

/** One poll of one ask: what it leads to, with the answer passed on before the polling stops. */
export async function pollRemoteAsk(
  ask: PolledAsk,
  deps: { line: RemoteAsksLine; sink: RemoteAnswerSink; intervals: AskPollIntervals },
  now: Date,
): Promise<PollPlan> {
  let seen: RemoteAskView | undefined;
  try {
    seen = await deps.line.poll(ask.relay, ask.askingSessionId, ask.id);
  } catch (error) {
    // That relay no longer has it (unpaired there, or its session deleted): nothing more will come.
    if (error instanceof Error && 'code' in error && error.code === 'REMOTE_RELAY_NOT_FOUND') return { kind: 'stop' };
    throw error;
  }
  const plan = planAskPoll(seen, now, deps.intervals);
  if (plan.kind === 'answered' && seen !== undefined) {
    await deps.sink.publish({
      userId: ask.userId,
      askingSessionId: ask.askingSessionId,
      askId: ask.id,
      answer: seen.answer,
      choice: seen.choice,
      dismissed: seen.status === 'dismissed',
      via: seen.via || ask.relay,
    });
  }
  return plan;
}

/**
 * Polls one ask due for a poll (pollRemoteAsk) and stores when to look again, or stops polling it once it is
 * answered, dismissed or gone. A poll that fails is looked at again after the online interval, and throws.
 */
export async function pollDueAsk(
  ask: PolledAsk,
  deps: { line: RemoteAsksLine; sink: RemoteAnswerSink; asks: RemoteAskStore; clock: Clock; intervals: AskPollIntervals },
): Promise<void> {
  const { asks, clock, intervals } = deps;
  try {
    const plan = await pollRemoteAsk(ask, deps, clock.now());
    if (plan.kind === 'again') await asks.settle(ask.relay, ask.id, plan.online, plan.nextPollAt);
    else await asks.drop(ask.relay, ask.id);
  } catch (error) {
    await asks.settle(ask.relay, ask.id, ask.online, new Date(clock.now().getTime() + intervals.onlineMs)).catch(() => undefined);
    throw error;
  }
}
