/**
 * Runs relay_tool calls as MCP tasks (mcp-tasks.ts), on whichever gateway replica holds them: the replica that took the
 * call runs it under a lease in the session service (McpTaskService), writing its status as it goes; the task keeps
 * the call, its caller and the effects it made (made-once.ts). Every replica claims, every few seconds, the tasks whose
 * lease ran out (their replica was killed) or that their replica let go (it stopped on SIGTERM, after the effect under
 * way was recorded), and finishes each with the result the call would have given: the call runs again, its cards keyed
 * by the call (the same card and its decision), its effects read from the task instead of made twice. A task that
 * cannot be known to have made its effect once ends failed, saying so (docs/adr/0042-mcp-tasks-taken-over.md).
 */
import { randomUUID } from 'node:crypto';
import { SystemClock, type Timer } from '@relay/clock';
import { CreateMcpTaskRequest, type McpTask } from '@relay/proto/relay/session/v1/mcp_task_service';
import { dispatchToolCall, type CallChannel } from '../../../app/relay-tool/dispatch.ts';
import type { CallEffects } from '../../../app/relay-tool/made-once.ts';
import type { McpTaskClient } from '../../../app/ports.ts';
import type { Caller } from '../../../domain/caller.ts';
import { whyNotMadeAgain, type Effects } from '../../../domain/why-not-made-again.ts';
import { toCallToolResult } from './call-tool-result.ts';
import type { McpDeps } from './create-mcp-server.ts';
import type { InFlightCalls } from './in-flight-calls.ts';

/** How long a task stays held without a write from its replica, and how often the replica renews it (relay clock). */
const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

/** How often every replica claims the tasks no replica holds (relay clock), and how many at most at a time. */
const CLAIM_EVERY_MS = 5_000;
const CLAIMED_AT_ONCE = 20;

/** How many writes an effect's record as begun is tried with before the effect is given up, unmade. */
const RECORD_TRIES = 3;

type TaskDeps = McpDeps & { mcpTasks: McpTaskClient };
type TaskCaller = Caller & { sessionId: string };

/** A task this replica runs: letting it go waits for its effect under way, then hands it over. */
interface Running {
  letGo(): Promise<void>;
}

export class McpTaskRunner {
  /** This replica, as the tasks it holds name it. */
  readonly id = randomUUID();
  private readonly running = new Map<string, Running>();
  private claims: Timer | undefined;
  private stopping = false;

  constructor(
    private readonly deps: TaskDeps,
    private readonly inFlight: InFlightCalls,
  ) {}

  /** Records relay_tool's call `input` as a task of `caller`'s session, held by this replica, and runs it. */
  async start(input: unknown, caller: TaskCaller, channel: Pick<CallChannel, 'traceparent'>): Promise<McpTask> {
    // The session service records the session's own origin as whether the caller is external.
    const { task } = await this.deps.mcpTasks.createMcpTask(
      CreateMcpTaskRequest.fromPartial({
        sessionId: caller.sessionId,
        inputJson: JSON.stringify(input),
        userId: caller.userId,
        runnerId: this.id,
        leaseMs: String(LEASE_MS),
      }),
    );
    if (task === undefined) throw new Error('CreateMcpTask answered no task');
    this.run(task, input, caller, channel);
    return task;
  }

  /** Stops the call of `caller`'s task `taskId` if this replica runs it (its client's tasks/cancel). */
  cancel(sessionId: string, taskId: string): void {
    this.inFlight.cancel(sessionId, inFlightKey(taskId));
  }

  /** Claims the tasks no replica holds every CLAIM_EVERY_MS of the relay's clock, until handOver. */
  claimEvery(): void {
    const clock = this.deps.clock ?? new SystemClock();
    const next = () => {
      if (!this.stopping) this.claims = clock.setTimer(CLAIM_EVERY_MS, () => void this.claim().finally(next));
    };
    next();
  }

  /**
   * Lets every task this replica runs go (SIGTERM): no new claim; each task's effect under way is recorded made, then
   * the task is released, and the next claim of another replica takes it over.
   */
  async handOver(): Promise<void> {
    this.stopping = true;
    this.claims?.cancel();
    await Promise.all([...this.running.values()].map((task) => task.letGo()));
  }

  private async claim(): Promise<void> {
    if (this.stopping) return;
    try {
      const { tasks } = await this.deps.mcpTasks.claimMcpTasks({ runnerId: this.id, leaseMs: String(LEASE_MS), limit: CLAIMED_AT_ONCE });
      for (const task of tasks) this.takeOver(task);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'the MCP tasks no replica holds could not be claimed; the next claim tries again');
    }
  }

  /** Finishes a task another replica stopped running: the call made again, or, when that could make an effect twice, ended failed. */
  private takeOver(task: McpTask): void {
    // Its own task, claimed back after its renewals failed for a lease: it runs on here.
    if (this.running.has(task.id)) return;
    const caller: TaskCaller = { userId: task.userId, sessionId: task.sessionId, ...(task.external ? { external: true } : {}) };
    const input = task.inputJson === '' ? undefined : (JSON.parse(task.inputJson) as unknown);
    const refusal = whyNotMadeAgain(input, effectsOf(task), this.deps.relayName);
    if (refusal !== undefined || this.stopping) {
      // A replica stopping meanwhile lets the task go for another.
      const end =
        refusal === undefined
          ? { status: task.status, statusMessage: task.statusMessage, cardId: task.cardId, release: true }
          : { status: 'failed', statusMessage: refusal, cardId: '', release: false };
      const { id, sessionId, progressJson } = task;
      void this.deps.mcpTasks
        .updateMcpTask({ id, sessionId, progressJson, resultJson: '', runnerId: this.id, leaseMs: String(LEASE_MS), ...end })
        .catch((error: unknown) => this.deps.logger.warn({ err: error, task: task.id }, 'an MCP task taken over could not be ended; its lease runs out'));
      return;
    }
    this.deps.logger.info({ task: task.id, session: task.sessionId }, 'an MCP task another replica stopped running is taken over');
    this.run(task, input, caller, {});
  }

  /**
   * Runs the task's call here and writes its status as it changes, until it ends, its client cancels it (through this
   * process at once, through another replica at this one's next write, which finds it cancelled), another replica
   * holds it (the write finds it so), or this replica lets it go.
   */
  private run(task: McpTask, input: unknown, caller: TaskCaller, channel: Pick<CallChannel, 'traceparent'>): void {
    const { deps } = this;
    const { sessionId } = caller;
    const cancelled = new AbortController();
    const forget = this.inFlight.register(sessionId, inFlightKey(task.id), cancelled);
    const effects = effectsOf(task);
    const state = { status: 'working', statusMessage: '', resultJson: '', cardId: '' };
    /** Whether this replica still holds the task: once another does (or none), nothing of this one's reaches it. */
    let held = true;
    // One write at a time, in order: the last one written is the last state. Each answers whether it landed with the
    // task still this replica's.
    let writing: Promise<boolean> = Promise.resolve(true);
    const write = (release = false): Promise<boolean> => {
      const fields = { ...state, progressJson: JSON.stringify(effects), runnerId: this.id, release, leaseMs: String(LEASE_MS) };
      writing = writing.then(async () => {
        if (!held) return false;
        try {
          const { task: written } = await deps.mcpTasks.updateMcpTask({ id: task.id, sessionId, ...fields });
          // Cancelled by its client (through any replica), or held by another runner (or none): the write did not land,
          // and nothing more of this replica's does — an effect not yet begun is never made.
          if (written?.status === 'cancelled' || written?.runnerId !== this.id) {
            held = false;
            cancelled.abort();
          }
          return held;
        } catch (error) {
          deps.logger.warn({ err: error, task: task.id }, 'an MCP task’s status could not be written; the next write tries again');
          return false;
        }
      });
      return writing;
    };
    /** Writes until one lands (a few tries), while the task is still this replica's. */
    const landed = async (): Promise<boolean> => {
      for (let tries = 1; held && tries <= RECORD_TRIES; tries += 1) if (await write()) return true;
      return false;
    };
    let effectUnderWay: Promise<unknown> = Promise.resolve();
    let leaving = false;
    const made: CallEffects['made'] = (name, codec) => {
      const recorded = effects[name];
      return recorded !== undefined && 'outcome' in recorded ? codec.fromJSON(recorded.outcome) : undefined;
    };
    const once: CallEffects['once'] = async (name, make, codec) => {
      const recorded = made(name, codec);
      if (recorded !== undefined) return recorded;
      if (effects[name] !== undefined) throw new Error(`the effect ${name} of task ${task.id} was begun and not recorded made`);
      if (leaving || cancelled.signal.aborted) throw new Error(`task ${task.id} stopped before its effect ${name}`);
      // Begun, recorded before it is made: a replica that finds it begun and not made does not make it again.
      effects[name] = {};
      const making = (async () => {
        if (!(await landed())) throw new Error(`task ${task.id} could not record its effect ${name} as begun, so did not make it`);
        const outcome = await make();
        effects[name] = { outcome: codec.toJSON(outcome) };
        await write();
        return outcome;
      })();
      effectUnderWay = making.catch(() => undefined);
      return making;
    };
    this.running.set(task.id, {
      letGo: async () => {
        leaving = true;
        await effectUnderWay;
        await write(true);
        held = false;
        cancelled.abort();
      },
    });
    // Renewed on the relay's clock, the one the session service measures the lease on.
    const clock = deps.clock ?? new SystemClock();
    let renewal: Timer | undefined;
    const renew = () => {
      renewal = clock.setTimer(RENEW_MS, () => {
        void write();
        renew();
      });
    };
    renew();
    void (async () => {
      try {
        const result = await dispatchToolCall(input, caller, deps, {
          signal: cancelled.signal,
          inTask: true,
          ...channel,
          effects: { once, made },
          progress: async (message) => {
            state.statusMessage = message;
            await write();
          },
          onCardWait: (cardId) => {
            Object.assign(state, { status: cardId === undefined ? 'working' : 'input_required', cardId: cardId ?? '' });
            void write();
          },
        });
        Object.assign(state, { status: 'completed', resultJson: JSON.stringify(toCallToolResult(result)), cardId: '', statusMessage: '' });
      } catch (error) {
        // dispatchToolCall answers every refusal as a result; this is a fault of ours, said as one.
        deps.logger.error({ err: error, task: task.id }, 'an MCP task failed');
        Object.assign(state, { status: 'failed', statusMessage: 'Something went wrong on this relay while the task ran.', cardId: '' });
      } finally {
        renewal?.cancel();
        forget();
        this.running.delete(task.id);
        // A task let go or lost is another replica's to end.
        if (!leaving) await write();
      }
    })();
  }
}

/** The key a running task's call is known by among the process's calls in flight (its tasks/cancel finds it there). */
function inFlightKey(taskId: string): string {
  return `task ${taskId}`;
}

function effectsOf(task: McpTask): Effects {
  return task.progressJson === '' ? {} : (JSON.parse(task.progressJson) as Effects);
}
