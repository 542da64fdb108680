import { describeExit, ManagedProcess, type ProcessExit } from './managed-process.ts';

export type RestartingServiceOptions = {
  /** Starts the process again (the same command, environment and ports each time). */
  start: () => Promise<ManagedProcess>;
  /** Called for each process started, first and restarted (the lock file records its pid). */
  started?: (child: ManagedProcess) => void;
  /** Says that it exited and when it starts again. */
  warn: (message: string) => void;
  /** The wait before the first restart (default 1 s); it doubles after each quick exit, up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** A process that ran this long was healthy: the next exit restarts after firstDelayMs again (default 60 s). */
  healthyAfterMs?: number;
};

/**
 * A service `relay up` keeps running: one that exits on its own (a crash, a kill -9, the OOM killer) is started
 * again after a backoff, and `relay up` says so, where it used to stop the whole relay. Its waits re-attach and its
 * state is in PostgreSQL and NATS (docs/adr/0030), so the others go on. stop() and kill() (Ctrl-C) end it for good.
 */
export class RestartingService {
  #current: ManagedProcess;
  #stopped = false;
  #restarts = 0;
  readonly #o: Required<Omit<RestartingServiceOptions, 'started'>> & Pick<RestartingServiceOptions, 'started'>;

  private constructor(
    readonly name: string,
    first: ManagedProcess,
    options: RestartingServiceOptions,
  ) {
    this.#o = { firstDelayMs: 1_000, maxDelayMs: 30_000, healthyAfterMs: 60_000, ...options };
    this.#current = first;
    this.#watch(first, Date.now(), this.#o.firstDelayMs);
  }

  /** Starts the service; rejects when its first start fails (as ManagedProcess.start does). */
  static async start(name: string, options: RestartingServiceOptions): Promise<RestartingService> {
    const first = await options.start();
    options.started?.(first);
    return new RestartingService(name, first, options);
  }

  /** The process running now. */
  get current(): ManagedProcess {
    return this.#current;
  }

  /** How many times it was started again. */
  get restarts(): number {
    return this.#restarts;
  }

  async stop(graceMs: number): Promise<ProcessExit> {
    this.#stopped = true;
    return this.#current.stop(graceMs);
  }

  kill(): void {
    this.#stopped = true;
    this.#current.kill();
  }

  #watch(child: ManagedProcess, startedAt: number, delayMs: number): void {
    void child.exited.then(async (exit) => {
      if (this.#stopped || child.stopping) return;
      const wait = Date.now() - startedAt >= this.#o.healthyAfterMs ? this.#o.firstDelayMs : delayMs;
      this.#o.warn(`the ${this.name} service ${describeExit(exit)}; starting it again in ${formatSeconds(wait)}`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      const next = Math.min(this.#o.maxDelayMs, wait * 2);
      if (this.#stopped) return;
      let restarted: ManagedProcess;
      try {
        restarted = await this.#o.start();
      } catch (error) {
        this.#o.warn(`the ${this.name} service could not be started again: ${error instanceof Error ? error.message : String(error)}`);
        this.#watch(child, startedAt, next);
        return;
      }
      if (this.#stopped) {
        restarted.kill();
        return;
      }
      this.#restarts += 1;
      this.#current = restarted;
      this.#o.started?.(restarted);
      this.#o.warn(`the ${this.name} service is running again (restart ${this.#restarts})`);
      this.#watch(restarted, Date.now(), next);
    });
  }
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
