/**
 * One clock for the whole relay. Services read time only through a Clock so that a virtual clock
 * (RELAY_CLOCK) can start anywhere and run faster, and tests can move time by hand.
 */
import { followClockControl } from './control.ts';

export { followClockControl };

/** A pending timer; cancel() is idempotent. */
export interface Timer {
  cancel(): void;
}

/** The relay's time port. */
export interface Clock {
  now(): Date;
  /** Calls `fn` once `ms` of this clock's time has passed. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves once `ms` of this clock's time has passed; rejects with the signal's reason on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type ClockSpec = { kind: 'system' } | { kind: 'virtual'; start: Date; rate: number };

const SPEC = /^(?<instant>[^@]+?)(?:@(?<rate>\d+(?:\.\d+)?)x)?$/;

/**
 * Parses RELAY_CLOCK: unset or `system` is the real clock; `<ISO-8601 instant>` starts a virtual
 * clock there; `<ISO-8601 instant>@<N>x` also runs it N times faster. Throws with what is wrong.
 */
export function parseClockSpec(value: string | undefined): ClockSpec {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'system') return { kind: 'system' };
  const match = SPEC.exec(text);
  const instant = match?.groups?.instant ?? '';
  const start = new Date(instant);
  if (!match || !/^\d{4}-\d{2}-\d{2}T/.test(instant) || Number.isNaN(start.getTime())) {
    throw new Error(`"${text}" is not "system", an ISO-8601 instant, or "<instant>@<N>x" (for example "2026-10-24T20:00:00Z@60x")`);
  }
  const rate = match.groups?.rate === undefined ? 1 : Number(match.groups.rate);
  if (!(rate > 0)) throw new Error(`the rate in "${text}" must be greater than 0`);
  return { kind: 'virtual', start, rate };
}

function abortable(signal: AbortSignal | undefined, arm: (resolve: () => void) => Timer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = arm(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    function onAbort() {
      timer.cancel();
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function realTimer(ms: number, fn: () => void): Timer {
  const handle = setTimeout(fn, Math.max(0, ms));
  handle.unref?.();
  return { cancel: () => clearTimeout(handle) };
}

/** The machine's clock. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
  setTimer(ms: number, fn: () => void): Timer {
    return realTimer(ms, fn);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortable(signal, (done) => this.setTimer(ms, done));
  }
}

/** A virtual clock's timer: its clock time, and the real timeout armed for it. */
interface PendingTimer {
  at: number;
  fn: () => void;
  handle?: ReturnType<typeof setTimeout>;
}

/**
 * A clock that read `start` at real time `epochMs` and runs `rate` times faster than real time.
 * Services started together pass the same epochMs so they agree on the time. A test can move it forward
 * (skipTo, through the control file of followClockControl): time-skipping, so a night passes in a moment.
 */
export class VirtualClock implements Clock {
  /** Clock time skipped so far, on top of what the rate gives. */
  #skippedMs = 0;
  readonly #timers = new Set<PendingTimer>();

  constructor(
    private readonly start: Date,
    private readonly rate: number,
    private readonly epochMs: number,
    private readonly realNowMs: () => number = Date.now,
  ) {}
  now(): Date {
    return new Date(this.start.getTime() + (this.realNowMs() - this.epochMs) * this.rate + this.#skippedMs);
  }
  setTimer(ms: number, fn: () => void): Timer {
    const timer: PendingTimer = { at: this.now().getTime() + Math.max(0, ms), fn };
    this.#timers.add(timer);
    this.#arm(timer);
    return {
      cancel: () => {
        clearTimeout(timer.handle);
        this.#timers.delete(timer);
      },
    };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortable(signal, (done) => this.setTimer(ms, done));
  }
  /**
   * Skips ahead so that `skippedMs` in all has been skipped (never back: a smaller figure changes nothing). The
   * timers it passes fire at once; the others keep their clock time, so they fire sooner in real time.
   */
  skipTo(skippedMs: number): void {
    if (skippedMs <= this.#skippedMs) return;
    this.#skippedMs = skippedMs;
    for (const timer of this.#timers) {
      clearTimeout(timer.handle);
      this.#arm(timer);
    }
  }
  /** How much clock time has been skipped so far. */
  get skippedMs(): number {
    return this.#skippedMs;
  }
  #arm(timer: PendingTimer): void {
    const fire = () => {
      // Node may run a timer a millisecond before Date.now() has moved as far (its timers keep their own clock):
      // a timer never fires before its clock time, so one that woke early waits the rest.
      if (this.now().getTime() < timer.at) return this.#arm(timer);
      this.#timers.delete(timer);
      timer.fn();
    };
    timer.handle = setTimeout(fire, Math.max(0, (timer.at - this.now().getTime()) / this.rate));
    timer.handle.unref?.();
  }
}

/** A clock that moves only when told to; timers fire in order as it passes them. For tests. */
export class ManualClock implements Clock {
  private current: number;
  private readonly timers = new Set<{ at: number; fn: () => void }>();

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  setTimer(ms: number, fn: () => void): Timer {
    const timer = { at: this.current + Math.max(0, ms), fn };
    this.timers.add(timer);
    return { cancel: () => this.timers.delete(timer) };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortable(signal, (done) => this.setTimer(ms, done));
  }
  /** Moves the clock forward by `ms`, firing every timer it passes, earliest first. */
  advance(ms: number): void {
    this.set(new Date(this.current + ms));
  }
  /** Moves the clock to `instant` (never backwards), firing the timers it passes. */
  set(instant: Date | string): void {
    const target = new Date(instant).getTime();
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = Math.max(this.current, target);
  }
}

/**
 * Builds the clock RELAY_CLOCK describes; `epochMs` is the real time the virtual start maps to. With `control`
 * (RELAY_CLOCK_CONTROL and the service's name), a virtual clock follows that file's skips (followClockControl).
 */
export function createClock(spec: ClockSpec, epochMs: number = Date.now(), control?: { file: string | undefined; name: string }): Clock {
  if (spec.kind === 'system') return new SystemClock();
  const clock = new VirtualClock(spec.start, spec.rate, epochMs);
  if (control?.file) followClockControl(clock, control.file, control.name);
  return clock;
}
