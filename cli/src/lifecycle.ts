/** Something `relay up` started and must stop. */
export type Resource = {
  name: string;
  /** Orderly stop; resolves once it is down. */
  stop: () => Promise<void>;
  /** Immediate stop, for a second Ctrl-C. */
  kill?: () => void;
  /** Stopped without a "Stopping …" line (bookkeeping such as the lock). */
  silent?: boolean;
};

/** Raised where startup notices that a stop was requested. */
export class StopRequested extends Error {
  override readonly name = 'StopRequested';
  constructor() {
    super('stop requested');
  }
}

/**
 * What `relay up` has started, stopped in reverse order (the gateway first, the lock last). A stop
 * request (Ctrl-C, a child that died) aborts `signal`; startup checks it between steps and unwinds.
 */
export class Lifecycle {
  private readonly controller = new AbortController();
  private readonly resources: Resource[] = [];
  private failureMessage: string | undefined;
  private resolveStopRequested: () => void = () => undefined;
  private shutdownPromise: Promise<void> | undefined;
  /** Resolves when a stop is requested. */
  readonly stopRequested = new Promise<void>((resolve) => {
    this.resolveStopRequested = resolve;
  });

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why we stop, when it is a failure (a child that exited on its own); undefined for Ctrl-C. */
  get failure(): string | undefined {
    return this.failureMessage;
  }

  /** Asks for a stop; the first request wins, so a failure after Ctrl-C is not reported as the cause. */
  requestStop(failure?: string): void {
    if (this.controller.signal.aborted) return;
    this.failureMessage = failure;
    this.controller.abort(new StopRequested());
    this.resolveStopRequested();
  }

  /** Registers a started resource, then throws StopRequested if a stop came meanwhile. */
  add(resource: Resource): void {
    this.resources.push(resource);
    this.signal.throwIfAborted();
  }

  /** Stops every resource, last started first; each failure is reported and the rest still stop. */
  shutdown(report: { info(message: string): void; warn(message: string): void }): Promise<void> {
    this.shutdownPromise ??= (async () => {
      // The resource being stopped stays listed until it is down, so a second Ctrl-C can still kill it.
      for (let resource = this.resources.at(-1); resource !== undefined; resource = this.resources.at(-1)) {
        if (resource.silent !== true) report.info(`Stopping ${resource.name}`);
        try {
          await resource.stop();
        } catch (error) {
          report.warn(`stopping ${resource.name} failed: ${(error as Error).message}`);
        }
        this.resources.pop();
      }
    })();
    return this.shutdownPromise;
  }

  /** Kills whatever is still running, without waiting. */
  kill(): void {
    for (const resource of [...this.resources].reverse()) resource.kill?.();
  }
}
