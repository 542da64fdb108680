/**
 * Background shell tasks: `sh -c <command>` in the session's folder, its output (stdout and
 * stderr) appended to a file under the relay's data folder, its start and end recorded with their
 * events. A task keeps running after the turn that started it ends; nothing survives a restart of
 * the process that runs it (recover() fails the orphans the last run left).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { endedStatus, TASK_OUTPUT_KEPT_MS, type Task } from '../domain/tasks/task.ts';
import type { PrismaTaskStore, TaskEnd } from './prisma-task-store.ts';

/** Relay time between two writes of a task's last-output time: the stall is counted in minutes. */
const OUTPUT_TOUCH_MS = 5_000;
/** How far back the sweep looks for ended tasks whose output to remove. */
const SWEEP_WINDOW_MS = 7 * 24 * 60 * 60_000;
export const RESTARTED_REASON = 'the relay restarted while the task ran; its process is gone';
export const STOPPED_REASON = 'the relay stopped while the task ran';

/** A task could not be started; the message says why. */
export class TaskStartRefused extends Error {
  override readonly name = 'TaskStartRefused';
}

export interface BackgroundTasksOptions {
  store: PrismaTaskStore;
  clock: Clock;
  logger: Logger;
  /** The folder output files go to (RELAY_DATA_DIR). */
  dataDir: string;
  host: string;
  /** This process's runner id: tasks of another id on this host are orphans. */
  runnerId: string;
}

type RunningTask = { child: ChildProcess; stopping: boolean; lastOutputAt: Date | null; lastTouch: number; ended: Promise<void> };

export class BackgroundTasks {
  readonly #o: BackgroundTasksOptions;
  readonly #running = new Map<string, RunningTask>();

  constructor(options: BackgroundTasksOptions) {
    this.#o = options;
  }

  /** Starts `command` in `cwd` for the session; refuses when the folder does not exist. */
  async start(input: { sessionId: string; cwd: string; command: string }): Promise<Task> {
    const { store, clock, logger, dataDir, host, runnerId } = this.#o;
    if (!(await isFolder(input.cwd))) throw new TaskStartRefused(`the session's folder ${input.cwd} does not exist on this relay`);
    await mkdir(dataDir, { recursive: true });
    const id = `task_${randomBytes(8).toString('hex')}`;
    const outputPath = join(dataDir, `${id}.log`);
    const output = createWriteStream(outputPath, { flags: 'a' });
    await new Promise<void>((resolve, reject) => output.once('open', () => resolve()).once('error', reject));
    // Its own process group, so a stop ends the command's children too.
    const child = spawn('sh', ['-c', input.command], { cwd: input.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // Listened to at once: a quick command ends before its row is written.
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    const running: RunningTask = { child, stopping: false, lastOutputAt: null, lastTouch: Number.NEGATIVE_INFINITY, ended: Promise.resolve() };
    const log = logger.child({ taskId: id, sessionId: input.sessionId });
    let recorded = false;
    const onData = (chunk: Buffer): void => {
      output.write(chunk);
      const now = clock.now();
      running.lastOutputAt = now;
      if (recorded && now.getTime() - running.lastTouch >= OUTPUT_TOUCH_MS) {
        running.lastTouch = now.getTime();
        store.touchOutput(id, now).catch((error: unknown) => log.warn({ err: error }, 'could not note the task output time'));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const spawned = await new Promise<Error | undefined>((resolve) => child.once('spawn', () => resolve(undefined)).once('error', resolve));
    if (spawned) {
      output.end();
      throw new TaskStartRefused(`could not start the command: ${spawned.message}`);
    }
    const task = await store.insertTask({ id, sessionId: input.sessionId, description: input.command, cwd: input.cwd, outputPath, host, runnerId, startedAt: clock.now() }, child.pid ?? null);
    if (task === undefined) {
      killGroup(child);
      output.end();
      throw new TaskStartRefused('the session is gone');
    }
    recorded = true;
    if (running.lastOutputAt !== null) {
      running.lastTouch = running.lastOutputAt.getTime();
      await store.touchOutput(id, running.lastOutputAt);
    }
    running.ended = closed.then(async ({ code, signal }) => {
      await new Promise<void>((resolve) => output.end(() => resolve()));
      const end: TaskEnd = running.stopping
        ? { status: 'stopped', exitCode: code, reason: STOPPED_REASON, endedAt: clock.now() }
        : { status: endedStatus(code), exitCode: code, reason: signal ? `ended by signal ${signal}` : '', endedAt: clock.now() };
      try {
        const ended = await store.endTask(id, end, running.lastOutputAt);
        log.info({ status: ended?.status, exitCode: code }, 'task ended');
      } catch (error) {
        log.error({ err: error }, 'could not record the task end');
      } finally {
        this.#running.delete(id);
      }
    });
    this.#running.set(id, running);
    log.info({ pid: child.pid }, 'task started');
    return task;
  }

  /** Fails the tasks an earlier run of this host left running (their process is gone or is ended now). */
  async recover(): Promise<number> {
    const { store, clock, logger, host, runnerId } = this.#o;
    const orphans = await store.orphans(host, runnerId);
    for (const orphan of orphans) {
      if (orphan.pid !== null) killGroupById(orphan.pid);
      await store.endTask(orphan.id, { status: 'failed', exitCode: null, reason: RESTARTED_REASON, endedAt: clock.now() }, null);
    }
    if (orphans.length > 0) logger.warn({ count: orphans.length }, 'failed the tasks an earlier run left');
    return orphans.length;
  }

  /** Removes the output files of tasks that ended more than an hour ago. */
  async sweep(): Promise<void> {
    const now = this.#o.clock.now().getTime();
    const paths = await this.#o.store.endedOutputs(this.#o.host, new Date(now - SWEEP_WINDOW_MS), new Date(now - TASK_OUTPUT_KEPT_MS));
    await Promise.all(paths.map((path) => rm(path, { force: true })));
  }

  /** Ids of the tasks running in this process. */
  runningTaskIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Ends every task running here as stopped (the relay stops) and waits for their ends to be recorded. */
  async stopAll(): Promise<void> {
    for (const running of this.#running.values()) {
      running.stopping = true;
      killGroup(running.child);
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

function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined) killGroupById(child.pid);
}

function killGroupById(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
