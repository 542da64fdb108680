/**
 * The turn runner: every replica runs one. It claims queued turns from the database (one at a time
 * per session, any replica any session), runs each with its session's provider under a lease it
 * renews, and ends it (done, error or stopped) with its events. docs/adr/0009-turn-runtime.md says why.
 * A replica that stops hands over the turns its providers can pick up elsewhere (a resume point), and takes over
 * those another replica let go or left behind when it died (docs/adr/0034-turns-hand-over.md).
 */
import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '@relay/clock';
import { Attr, inNewTrace, linksTo, markFailed, outsideTrace, type Logger, type Span } from '@relay/telemetry';
import { announcesActivity } from '../../domain/turns/turn-activity.ts';
import { endTurnAs, LEASE_RENEW_MS, leaseUntil, TURN_LEASE_MS, turnDeadline, type TurnOutcome } from '../../domain/turns/turn-rules.ts';
import { claimNextTurn } from './claim-next-turn.ts';
import { endTurn, sweepExpiredLeases } from './end-turn.ts';
import { raiseQuestion, settleQuestion } from './turn-questions.ts';
import { recordSubagentFinished, recordTurnActivity } from './turn-progress.ts';
import type { ClaimedTurn, TurnStore } from './turn-store.ts';
import { heldProviders } from '../../domain/usage/usage.ts';
import type { UsageLedger } from '../usage/ports.ts';
import type { IdGenerator } from '../ports.ts';
import { TurnFailed, TurnHandedOver, type ProviderEvent, type ResumePoint } from './provider.ts';
import type { ProviderRegistry } from './provider-registry.ts';
import type { QuestionCards } from './question-cards.ts';
import { InFlightWriter } from './in-flight-writer.ts';
import type { SessionWorkers } from './session-workers.ts';
import type { TurnSignals } from './turn-signals.ts';

export interface TurnRunnerOptions {
  store: TurnStore;
  /** Ids of the events and reply messages the turns' ends write. */
  ids: IdGenerator;
  providers: ProviderRegistry;
  /** Withdraws what a turn that ends left pending (the question service's CancelCards). */
  cards: Pick<QuestionCards, 'cancel'>;
  workers: Pick<SessionWorkers, 'acquire' | 'release'>;
  signals: TurnSignals;
  /** The relay clock: leases, Max turn duration and every wait a provider makes. */
  clock: Clock;
  logger: Logger;
  /** The relay's Max turn duration, read when a turn starts. */
  maxTurnMinutes: () => Promise<number>;
  /**
   * The usage-limit pauses every replica records (the usage ledger in PostgreSQL), read once per look at
   * the turns table: a paused provider's queued turns wait, on every replica, until the pause ends. Without
   * it nothing is held.
   */
  pauses?: Pick<UsageLedger, 'pausesAt'>;
  /** The budgets over delegation trees (docs/adr/0039-tree-budgets.md) whose minutes run out; without it none is checked. */
  budgets?: BudgetChecks;
  /** Defaults to a fresh id per process, so a restarted replica never mistakes a dead run for its own. */
  runnerId?: string;
  /** Relay-clock lease and renewal period (defaults 30 s and 10 s). */
  leaseMs?: number;
  renewMs?: number;
  /** Real time between looks at the turns table when no nudge came (default 250 ms). */
  pollIntervalMs?: number;
  /** Turns this replica runs at once (default 16). */
  maxConcurrentTurns?: number;
  /** Real time between writes of a turn's in-flight reply (default 500 ms). */
  inFlightIntervalMs?: number;
}

/**
 * The budget check the runner makes at each look: the minutes (time passes with nothing recorded). A turn's use is
 * checked as the ledger records it (BudgetCheckedLedger).
 */
export interface BudgetChecks {
  look(now: Date): Promise<void>;
}

/** Why a runner aborted a turn's provider. */
type AbortCause = 'stopped' | 'overran' | 'relay_stopped' | 'lease_lost' | 'handed_over';

type RunningTurn = {
  abort: AbortController;
  cause?: AbortCause;
  finished?: Promise<void>;
  /** When the turn's activity was last announced (turn_activity); its start counts as one. */
  announcedAt: Date;
  /** Its provider saved a resume point: another replica can pick the turn up. */
  resumable: boolean;
  /** Since its last resume point the turn only waits for a person or a reply: it can be handed over at once. */
  parked: boolean;
  /** Cards its provider raised and has not reported answered: they may still be pending when it ends. */
  openCards: number;
};

// Turns are claimed when turn_queued or a stop comes over NATS (published as the queueing commits) and when a turn
// here ends; the poll only catches what no signal announces: a lease that ran out on a crashed replica, a usage
// pause that ended, a signal lost with a connection.
const DEFAULT_POLL_INTERVAL_MS = 5_000;
const DEFAULT_MAX_CONCURRENT_TURNS = 16;
const END_ATTEMPTS = 3;
/** What a turn says when the relay itself failed while running it; the details stay in the log. */
const INTERNAL_TURN_ERROR = 'the turn failed on this relay (internal error); send it again';

export class TurnRunner {
  readonly runnerId: string;
  readonly #o: Required<Omit<TurnRunnerOptions, 'runnerId' | 'pauses' | 'budgets'>> & Pick<TurnRunnerOptions, 'pauses' | 'budgets'>;
  readonly #running = new Map<string, RunningTurn>();
  #stopped = true;
  /** Set by drain(): the looks go on (stop requests, expired leases) but claim nothing. */
  #draining = false;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #unsubscribe: (() => void) | undefined;

  constructor(options: TurnRunnerOptions) {
    this.runnerId = options.runnerId ?? `runner-${randomUUID()}`;
    this.#o = {
      leaseMs: TURN_LEASE_MS,
      renewMs: LEASE_RENEW_MS,
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
      maxConcurrentTurns: DEFAULT_MAX_CONCURRENT_TURNS,
      inFlightIntervalMs: 500,
      ...options,
    };
  }

  /** Starts claiming turns: at once, on every nudge, and every poll interval. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unsubscribe = this.#o.signals.onWork(() => this.kick());
    this.kick();
  }

  /** Looks at the turns table now (or right after the look in progress). */
  kick(): void {
    // Nudged from inside a call's or a message's span: the looks it starts belong to no trace (each turn has its own).
    outsideTrace(() => this.#kick());
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#ticking = this.#tick()
      .catch((error: unknown) => this.#o.logger.error({ err: error, runnerId: this.runnerId }, 'turn runner tick failed'))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#stopped) return;
        if (this.#again) {
          this.#again = false;
          this.kick();
        } else {
          this.#timer = setTimeout(() => this.kick(), this.#o.pollIntervalMs);
          this.#timer.unref();
        }
      });
  }

  /**
   * A rollout's first step: claims and takes over no more turns (queued ones wait in the table for another replica,
   * or for this one's successor), hands the turns that only wait over at once (and each that comes to wait later),
   * lets the others end by themselves for up to `graceMs` of real time (a stop request still reaches them), then
   * stop() hands over or ends the rest.
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    for (const turn of this.#running.values()) if (turn.parked) this.#abort(turn, 'handed_over');
    const running = [...this.#running.values()].map((turn) => turn.finished);
    if (running.length > 0) {
      this.#o.logger.info({ runnerId: this.runnerId, turns: running.length, graceMs }, 'letting the running turns end before stopping');
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(running), graceOver]);
      clearTimeout(timer);
    }
    await this.stop();
  }

  /**
   * Stops claiming and lets go of the turns running here: one its provider can pick up elsewhere is handed over (its
   * lease ends now, and another replica takes it over), the others end as error ("the relay stopped while this turn
   * ran; send it again"), as a crash would after the lease, only sooner.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
    await this.#ticking;
    for (const turn of this.#running.values()) this.#abort(turn, turn.resumable ? 'handed_over' : 'relay_stopped');
    await Promise.all([...this.#running.values()].map((turn) => turn.finished));
  }

  /** Ids of the turns running here now. */
  runningTurnIds(): string[] {
    return [...this.#running.keys()];
  }

  async #tick(): Promise<void> {
    const { store, clock, signals } = this.#o;
    // The turns running here are alive by definition, whatever their lease says at this instant. A replica that
    // drains takes over nothing: the turns another one let go wait for a replica that stays.
    const room = () => !this.#stopped && !this.#draining && this.#running.size < this.#o.maxConcurrentTurns;
    const takeOver = { runnerId: this.runnerId, leaseUntil: leaseUntil(clock.now(), this.#o.leaseMs), room };
    const swept = await sweepExpiredLeases(this.#o, clock.now(), new Set(this.#running.keys()), takeOver);
    for (const turnId of swept.ended) signals.ended(turnId);
    for (const claimed of swept.takenOver) {
      this.#o.logger.info({ runnerId: this.runnerId, turnId: claimed.turnId }, 'took over a turn another replica let go');
      this.#launch(claimed);
    }
    if (this.#running.size > 0) {
      for (const turnId of await store.stopRequested(this.runnerId)) this.#abort(this.#running.get(turnId), 'stopped');
    }
    await this.#checkMinutes();
    if (this.#draining || this.#running.size >= this.#o.maxConcurrentTurns) return;
    // A pause another replica recorded holds here too; the next look after it ends claims the turns it held.
    const held = this.#o.pauses === undefined ? [] : heldProviders(await this.#o.pauses.pausesAt(clock.now()), clock.now());
    while (!this.#stopped && !this.#draining && this.#running.size < this.#o.maxConcurrentTurns) {
      const claim = await claimNextTurn(this.#o, {
        runnerId: this.runnerId,
        now: clock.now(),
        canRun: (provider) => this.#o.providers.canRun(provider),
        leaseMs: this.#o.leaseMs,
        held,
      });
      if (claim === undefined) return;
      if (claim.kind === 'ended') {
        signals.ended(claim.turnId);
        continue;
      }
      this.#launch(claim.claimed);
    }
  }

  #launch(claimed: ClaimedTurn): void {
    const resumable = claimed.resume !== undefined;
    const turn: RunningTurn = { abort: new AbortController(), announcedAt: claimed.startedAt, resumable, parked: false, openCards: 0 };
    this.#running.set(claimed.turnId, turn);
    turn.finished = this.#traced(claimed, (span) => this.#run(claimed, turn, span))
      .catch((error: unknown) => this.#o.logger.error({ err: error, turnId: claimed.turnId }, 'turn run failed'))
      .finally(() => {
        this.#running.delete(claimed.turnId);
        // The session's next turn may be waiting for this one.
        this.kick();
      });
  }

  /**
   * Runs the turn in a span of its own: a new trace (a turn can outlast the call that queued it by hours), linked to
   * the span of the call or message that queued it. Its logs, database work and the calls its agent makes carry it.
   */
  #traced(claimed: ClaimedTurn, run: (span: Span) => Promise<void>): Promise<void> {
    const attributes = { [Attr.SESSION_ID]: claimed.session.id, [Attr.TURN_ID]: claimed.turnId, [Attr.PROVIDER]: claimed.session.provider };
    return inNewTrace('session', 'turn', { attributes, links: linksTo([claimed.traceParent]) }, run);
  }

  async #run(claimed: ClaimedTurn, turn: RunningTurn, span: Span): Promise<void> {
    const { store, clock, providers, workers } = this.#o;
    const log = this.#o.logger.child({ turnId: claimed.turnId, sessionId: claimed.session.id, provider: claimed.session.provider });
    const timers: Pick<Timer, 'cancel'>[] = [];
    // Written every half second while the reply streams: not a span each under the turn.
    const inFlight = new InFlightWriter((text) => outsideTrace(() => store.setInFlight(claimed.turnId, this.runnerId, text)), this.#o.inFlightIntervalMs, log);
    let maxTurnMinutes = 0;
    let outcome: TurnOutcome;
    log.info('turn started');
    try {
      timers.push(this.#keepLease(claimed.turnId, turn, log));
      maxTurnMinutes = await this.#o.maxTurnMinutes();
      const overrunMs = turnDeadline(claimed.startedAt, maxTurnMinutes).getTime() - clock.now().getTime();
      timers.push(clock.setTimer(overrunMs, () => this.#abort(turn, 'overran')));

      const provider = providers.get(claimed.session.provider);
      if (provider === undefined) throw new Error(`claimed a turn of provider ${claimed.session.provider}, which this runner cannot run`);
      const token = await workers.acquire(claimed.session);
      try {
        turn.abort.signal.throwIfAborted();
        const reply = await provider.startTurn({
          session: claimed.session,
          message: { id: claimed.messageId, text: claimed.text },
          token,
          signal: turn.abort.signal,
          clock,
          emit: (event) => this.#report(claimed.turnId, turn, event, inFlight, log),
          ...(claimed.resume === undefined ? {} : { resume: claimed.resume }),
        });
        outcome = { kind: 'replied', text: reply.text, model: reply.model };
      } finally {
        workers.release(claimed.session.id);
      }
    } catch (error) {
      outcome = this.#outcomeOf(error, turn, maxTurnMinutes, log);
    } finally {
      for (const timer of timers) timer.cancel();
      await inFlight.close();
    }
    if (turn.cause === 'lease_lost') {
      span.addEvent('lease_lost');
      log.warn('turn lease lost; another replica ended it');
      return;
    }
    // Handed over unless its provider had ended the turn by itself already.
    if (turn.cause === 'handed_over' && outcome.kind === 'relay_stopped' && (await this.#release(claimed.turnId, log))) {
      span.addEvent('handed_over');
      return;
    }
    if (turn.openCards > 0) await this.#withdrawCards(claimed.session.id, log);
    const status = await this.#end(claimed.turnId, outcome, log);
    if (status !== undefined) span.setAttribute(Attr.TURN_STATUS, status);
    if (status === 'error') markFailed(span);
  }

  /** A budget check that fails is logged: the next look checks again, and turns go on meanwhile. */
  async #checkMinutes(): Promise<void> {
    try {
      await this.#o.budgets?.look(this.#o.clock.now());
    } catch (error) {
      this.#o.logger.warn({ err: error, runnerId: this.runnerId }, 'could not check the budgets; the next look checks again');
    }
  }

  /** Renews the lease every renewMs of relay time until cancelled; a renewal that finds the turn gone aborts it. */
  #keepLease(turnId: string, turn: RunningTurn, log: Logger): Pick<Timer, 'cancel'> {
    const { store, clock } = this.#o;
    let next: Timer;
    const renew = (): void => {
      // A renewal every few seconds of an hours-long turn: not a span each under the turn.
      outsideTrace(() => store.renewLease(turnId, this.runnerId, leaseUntil(clock.now(), this.#o.leaseMs))).then(
        (held) => {
          if (!held) this.#abort(turn, 'lease_lost');
        },
        (error: unknown) => log.warn({ err: error }, 'could not renew the turn lease; will try again'),
      );
      next = clock.setTimer(this.#o.renewMs, renew);
    };
    next = clock.setTimer(this.#o.renewMs, renew);
    return { cancel: () => next.cancel() };
  }

  async #report(turnId: string, turn: RunningTurn, event: ProviderEvent, inFlight: InFlightWriter, log: Logger): Promise<void> {
    switch (event.type) {
      case 'text':
        inFlight.append(event.delta);
        await this.#announceActivity(turnId, turn, log);
        return;
      case 'question_raised':
        turn.openCards++;
        await raiseQuestion(this.#o, turnId, this.runnerId, event.question, this.#o.clock.now());
        return;
      case 'question_answered':
        turn.openCards--;
        await settleQuestion(this.#o, turnId, this.runnerId, event.questionId);
        return;
      case 'tool_call':
        log.debug({ tool: event.name }, 'tool call');
        await this.#announceActivity(turnId, turn, log);
        return;
      case 'subagent_finished':
        log.info({ subagent: event.description, status: event.status }, 'sub-agent finished');
        await recordSubagentFinished(
          this.#o,
          turnId,
          this.runnerId,
          { description: event.description, status: event.status, summary: event.summary },
          this.#o.clock.now(),
        );
        return;
      case 'resume_point':
        await this.#keepResumePoint(turnId, turn, event.point, event.parked);
        return;
    }
  }

  /**
   * Keeps where another replica can pick the turn up, before the provider goes on. A turn that comes to wait while
   * this replica drains is handed over at once. A point that could not be written leaves the turn as it was.
   */
  async #keepResumePoint(turnId: string, turn: RunningTurn, point: ResumePoint, parked: boolean): Promise<void> {
    if (!(await this.#o.store.saveResumePoint(turnId, this.runnerId, point))) return;
    turn.resumable = true;
    turn.parked = parked;
    if (parked && this.#draining) this.#abort(turn, 'handed_over');
  }

  /**
   * Lets go of a turn handed over: it stays running or waiting, with its questions and its resume point, for the
   * replica that takes it over. False when it could not be let go (it then ends here as the relay stopped).
   */
  async #release(turnId: string, log: Logger): Promise<boolean> {
    try {
      if (await this.#o.store.releaseTurn(turnId, this.runnerId)) {
        log.info('turn handed over to another replica');
        return true;
      }
      log.warn('turn was no longer this runner’s to hand over');
    } catch (error) {
      log.warn({ err: error }, 'could not hand the turn over; it ends here');
    }
    return false;
  }

  /**
   * Tells the turn's watchers it still works, at most once a minute of relay time: without it a long turn with no
   * question, sub-agent or task would count as stalled. A failed write only loses one sign of life: the next
   * activity tries again, and the turn goes on.
   */
  async #announceActivity(turnId: string, turn: RunningTurn, log: Logger): Promise<void> {
    const now = this.#o.clock.now();
    if (!announcesActivity(turn.announcedAt, now)) return;
    const previous = turn.announcedAt;
    turn.announcedAt = now;
    try {
      await recordTurnActivity(this.#o, turnId, this.runnerId, now);
    } catch (error) {
      turn.announcedAt = previous;
      log.warn({ err: error }, 'could not record the turn activity; the next activity tries again');
    }
  }

  #outcomeOf(error: unknown, turn: RunningTurn, maxTurnMinutes: number, log: Logger): TurnOutcome {
    switch (turn.cause) {
      case 'stopped':
        return { kind: 'stopped' };
      case 'overran':
        return { kind: 'overran', maxTurnMinutes };
      case 'relay_stopped':
      case 'lease_lost':
      case 'handed_over':
        return { kind: 'relay_stopped' };
      case undefined:
        break;
    }
    if (error instanceof TurnFailed) return { kind: 'failed', error: error.message };
    log.error({ err: error }, 'turn failed on this relay');
    return { kind: 'failed', error: INTERNAL_TURN_ERROR };
  }

  /**
   * Withdraws the cards a turn ending with one still open left pending, before its end is recorded: a turn read as
   * ended has none a person could still decide. Its provider withdraws them as it aborts (at once, while it may take
   * a grace to end), but a provider answering its agent's request for approval (Codex, ACP, Copilot) may end the turn
   * before that request's own withdrawal is done. Not withdrawn here (the question service away), turn_ended
   * withdraws them there once it is back.
   */
  async #withdrawCards(sessionId: string, log: Logger): Promise<void> {
    try {
      await this.#o.cards.cancel(sessionId);
    } catch (error) {
      log.warn({ err: error }, 'could not withdraw the turn’s cards; the question service withdraws them as it hears the turn ended');
    }
  }

  /** Ends the turn in the store; answers the status it ended with, or undefined when this runner did not end it. */
  async #end(turnId: string, outcome: TurnOutcome, log: Logger): Promise<string | undefined> {
    const ending = endTurnAs(outcome);
    for (let attempt = 1; ; attempt++) {
      try {
        const ended = await endTurn(this.#o, turnId, this.runnerId, ending, this.#o.clock.now());
        if (ended) {
          log.info({ status: ending.status }, 'turn ended');
          this.#o.signals.ended(turnId);
          return ending.status;
        }
        log.warn({ status: ending.status }, 'turn was no longer this runner’s to end');
        return undefined;
      } catch (error) {
        // Left running, the turn's lease lapses and the next sweep ends it as "the relay stopped".
        if (attempt >= END_ATTEMPTS) {
          log.error({ err: error }, 'could not end the turn');
          return undefined;
        }
        log.warn({ err: error, attempt }, 'could not end the turn; trying again');
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  #abort(turn: RunningTurn | undefined, cause: AbortCause): void {
    if (turn === undefined || turn.abort.signal.aborted) return;
    turn.cause = cause;
    turn.abort.abort(cause === 'handed_over' ? new TurnHandedOver('the turn is handed to another replica') : new Error(`turn aborted: ${cause}`));
  }
}
