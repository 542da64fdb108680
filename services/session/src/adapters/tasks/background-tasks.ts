/**
 * Background shell tasks: `sh -c <command>` in the session's folder (by its real path, inside the relay's allowed
 * roots), inside the relay's sandbox (task-sandbox.ts: bubblewrap on one machine, the command runner on Kubernetes;
 * it reaches that folder and none of the relay's files, processes or secrets; where no sandbox can be had, no command
 * starts), with an allowlisted environment that holds
 * none of the service's secrets, its output (stdout and stderr) kept in
 * PostgreSQL as it comes (TaskOutputLog), its start and end recorded with their events. A task keeps running
 * after the turn that started it ends. Its runner holds a lease on it (relay time); when the runner dies, any
 * replica's sweep fails it once the lease has run out, and a restart on the same host and port fails it at once
 * (recover()). The output stays readable from any replica for an hour after the end, then the sweep removes it.
 * A provider's sub-agents are tracked here too (track()): tasks of type local_agent with no process or output of
 * the relay's, held by the same lease, so a dead replica's sub-agents are failed like its commands.
 */
import { stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { Clock, Timer } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { folderRefusal, normaliseFolder } from '../../domain/sessions/folders.ts';
import type { RealFolders } from '../../app/ports.ts';
import type { SandboxedCommand, TaskSandbox } from '../../app/tasks/task-sandbox.ts';
import { endedStatus, TASK_LEASE_MS, TASK_LEASE_RENEW_MS, TASK_OUTPUT_KEPT_MS, type Task } from '../../domain/tasks/task.ts';
import type { RunningTaskStore, TaskEnd } from '../../app/tasks/ports.ts';
import { OUTPUT_ANNOUNCE_MS, TaskOutputLog } from './task-output-log.ts';

export const RESTARTED_REASON = 'the relay restarted while the task ran; its process is gone';
export const STOPPED_REASON = 'the relay stopped while the task ran';
export const RUNNER_GONE_REASON = 'the relay replica that ran it stopped answering; its process is gone';

/** A task could not be started; the message says why. */
export class TaskStartRefused extends Error {
  override readonly name = 'TaskStartRefused';
}

export interface BackgroundTasksOptions {
  store: RunningTaskStore;
  clock: Clock;
  logger: Logger;
  /** Where this process runs commands (a machine, and the replica's slot on it): what recover() looks at. */
  host: string;
  /** This process's runner id: tasks of another id on this host are orphans. */
  runnerId: string;
  /** The whole environment a command starts with (commandEnv): never the service's own. */
  env: Readonly<Record<string, string>>;
  /** The folders commands may run in (real paths), and how a session's folder resolves on this machine. */
  allowedRoots: readonly string[];
  folders: RealFolders;
  /** Where every command runs (bubblewrap here, or the command runner); one that is unavailable refuses every command. */
  sandbox: TaskSandbox;
}

type RunningTask = { command: SandboxedCommand; stopping: boolean; ended: Promise<void> };
/** A tracked sub-agent: when its last sign of life was announced (task_output), at most once a minute. */
type TrackedTask = { announcedAt: Date | null };

export class BackgroundTasks {
  readonly #o: BackgroundTasksOptions;
  readonly #running = new Map<string, RunningTask>();
  readonly #tracked = new Map<string, TrackedTask>();

  constructor(options: BackgroundTasksOptions) {
    this.#o = options;
  }

  /** Why no command may run here (no sandbox), or undefined when they run. */
  refusal(): string | undefined {
    return this.#o.sandbox.unavailable;
  }

  /** Where a command in `cwd` runs, as its approval card says. */
  where(cwd: string): string {
    return this.#o.sandbox.where(cwd);
  }

  /**
   * Starts `command` in `cwd` for the session inside the sandbox; refuses when there is no sandbox, when the folder does not exist, or when its real path (a
   * symbolic link made since the session took the folder) lies outside the allowed roots or in a .relay folder.
   * The task is described by `description` when the agent gave one, else by the command.
   */
  async start(input: { sessionId: string; cwd: string; command: string; description?: string | undefined }): Promise<Task> {
    const { store, clock, logger, host, runnerId, sandbox } = this.#o;
    if (sandbox.unavailable !== undefined) throw new TaskStartRefused(sandbox.unavailable);
    if (!(await isFolder(input.cwd))) throw new TaskStartRefused(`the session's folder ${input.cwd} does not exist on this relay`);
    const cwd = await this.#o.folders.realPath(normaliseFolder(input.cwd) ?? input.cwd);
    const refusal = folderRefusal(cwd, this.#o.allowedRoots);
    if (refusal !== undefined) throw new TaskStartRefused(refusal);
    const id = `task_${randomBytes(8).toString('hex')}`;
    const log = logger.child({ taskId: id, sessionId: input.sessionId });
    const output = new TaskOutputLog({ taskId: id, store, logger: log });
    // Its own process group, so a stop ends the sandbox (and with it the command's children).
    const command = sandbox.start({
      sessionId: input.sessionId,
      folder: cwd,
      argv: ['sh', '-c', input.command],
      env: this.#o.env,
      onOutput: (chunk) => output.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), clock.now()),
    });
    const running: RunningTask = { command, stopping: false, ended: Promise.resolve() };
    const started = await command.started.catch((error: unknown) => error as Error);
    if (started instanceof Error) throw new TaskStartRefused(`could not start the command: ${started.message}`);
    const startedAt = clock.now();
    const task = await store.insertTask(
      {
        id,
        sessionId: input.sessionId,
        description: input.description?.trim() || input.command,
        type: 'local_bash',
        cwd,
        host,
        runnerId,
        startedAt,
        leaseUntil: new Date(startedAt.getTime() + TASK_LEASE_MS),
      },
      started.localPid,
    );
    if (task === undefined) {
      command.stop();
      throw new TaskStartRefused('the session is gone');
    }
    output.open();
    running.ended = command.ended.then(async ({ exitCode: code, signal, lost }) => {
      // All the output is in before the end is recorded: a reader that sees the end sees all of it.
      await output.flush();
      const end: TaskEnd = running.stopping
        ? { status: 'stopped', exitCode: code, reason: STOPPED_REASON, endedAt: clock.now() }
        : { status: endedStatus(code), exitCode: code, reason: lost ?? (signal ? `ended by signal ${signal}` : ''), endedAt: clock.now() };
      try {
        const ended = await store.endTask(id, end);
        log.info({ status: ended?.status, exitCode: code }, ended ? 'task ended' : 'task ended after another replica had failed it');
      } catch (error) {
        log.error({ err: error }, 'could not record the task end');
      } finally {
        this.#running.delete(id);
      }
    });
    this.#running.set(id, running);
    log.info({ pid: started.localPid }, 'task started');
    return task;
  }

  /**
   * Records a provider's running sub-agent as a local_agent task of the session (with its task_started); this
   * runner holds its lease until end(). Throws when the session is gone.
   */
  async track(input: { sessionId: string; cwd: string; description: string }): Promise<Task> {
    const { store, clock, host, runnerId } = this.#o;
    const id = `task_${randomBytes(8).toString('hex')}`;
    const startedAt = clock.now();
    const task = await store.insertTask(
      {
        id,
        sessionId: input.sessionId,
        description: input.description,
        type: 'local_agent',
        cwd: input.cwd,
        host,
        runnerId,
        startedAt,
        leaseUntil: new Date(startedAt.getTime() + TASK_LEASE_MS),
      },
      null,
    );
    if (task === undefined) throw new TaskStartRefused('the session is gone');
    this.#tracked.set(id, { announcedAt: null });
    this.#o.logger.info({ taskId: id, sessionId: input.sessionId }, 'sub-agent task started');
    return task;
  }

  /** A tracked sub-agent showed progress: its last sign of life, announced at most once a minute (the stall counts from it). */
  async progress(taskId: string): Promise<void> {
    const tracked = this.#tracked.get(taskId);
    if (tracked === undefined) return;
    const now = this.#o.clock.now();
    const announce = tracked.announcedAt === null || now.getTime() - tracked.announcedAt.getTime() >= OUTPUT_ANNOUNCE_MS;
    await this.#o.store.touchTask(taskId, now, announce);
    if (announce) tracked.announcedAt = now;
  }

  /** A tracked sub-agent ended (its task_finished, whatever the status); nothing when it had ended already. */
  async end(taskId: string, status: 'completed' | 'failed' | 'stopped', reason = ''): Promise<void> {
    this.#tracked.delete(taskId);
    await this.#o.store.endTask(taskId, { status, exitCode: null, reason, endedAt: this.#o.clock.now() });
  }

  /** Fails the tasks an earlier run of this host left running (their process is gone or is ended now). */
  async recover(): Promise<number> {
    const { store, clock, logger, host, runnerId } = this.#o;
    const orphans = await store.orphans(host, runnerId);
    for (const orphan of orphans) {
      if (orphan.pid !== null) killGroupById(orphan.pid);
      await store.endTask(orphan.id, { status: 'failed', exitCode: null, reason: RESTARTED_REASON, endedAt: clock.now() });
    }
    if (orphans.length > 0) logger.warn({ count: orphans.length }, 'failed the tasks an earlier run left');
    return orphans.length;
  }

  /**
   * Renews the leases of the tasks running here, and ends a task whose lease another replica took (it failed
   * the task thinking this runner dead): its process must not run on unseen.
   */
  async renewLeases(): Promise<void> {
    const { store, clock, runnerId } = this.#o;
    const ids = [...this.#running.keys(), ...this.#tracked.keys()];
    const held = await store.renewLeases(runnerId, ids, new Date(clock.now().getTime() + TASK_LEASE_MS));
    for (const id of ids) {
      if (!held.has(id)) this.#tracked.delete(id);
      const running = this.#running.get(id);
      if (!held.has(id) && running !== undefined) {
        this.#o.logger.warn({ taskId: id }, 'task lease lost; ending its process');
        running.command.stop();
      }
    }
  }

  /**
   * Any replica's sweep: fails the running tasks whose runner stopped renewing their lease (it died with
   * their process), and removes the output of tasks that ended more than an hour ago.
   */
  async sweep(): Promise<void> {
    const { store, clock, logger, runnerId } = this.#o;
    const now = clock.now();
    for (const id of await store.expiredLeases(runnerId, now)) {
      const ended = await store.endTask(id, { status: 'failed', exitCode: null, reason: RUNNER_GONE_REASON, endedAt: now }, { leaseBefore: now });
      if (ended) logger.warn({ taskId: id }, 'failed a task whose runner is gone');
    }
    const removed = await store.removeOutputs(new Date(now.getTime() - TASK_OUTPUT_KEPT_MS));
    if (removed > 0) logger.info({ count: removed }, 'removed the output of tasks that ended over an hour ago');
  }

  /** Renews this runner's leases and sweeps every TASK_LEASE_RENEW_MS of relay time, until stopped. */
  keepUp(): { stop(): void } {
    let stopped = false;
    let timer: Timer;
    const round = (): void => {
      Promise.all([this.renewLeases(), this.sweep()])
        .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'could not renew task leases or sweep; will try again'))
        .finally(() => {
          if (!stopped) timer = this.#o.clock.setTimer(TASK_LEASE_RENEW_MS, round);
        });
    };
    timer = this.#o.clock.setTimer(TASK_LEASE_RENEW_MS, round);
    return {
      stop: () => {
        stopped = true;
        timer.cancel();
      },
    };
  }

  /** Ids of the tasks running in this process. */
  runningTaskIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Ends every task running here as stopped (the relay stops) and waits for their ends to be recorded. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#tracked.keys()].map((id) => this.end(id, 'stopped', STOPPED_REASON)));
    for (const running of this.#running.values()) {
      running.stopping = true;
      running.command.stop();
    }
    await Promise.all([...this.#running.values()].map((running) => running.ended));
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function killGroupById(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
