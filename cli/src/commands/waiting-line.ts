/** A stream the waiting line may write to: a terminal's is a TTY. */
export type StatusStream = NodeJS.WritableStream & { isTTY?: boolean };

export type WaitingClock = {
  /** Milliseconds on a monotonic clock. */
  nowMs: () => number;
  /** Calls `tick` every `intervalMs` until the returned function is called. */
  every: (tick: () => void, intervalMs: number) => () => void;
};

const SYSTEM_CLOCK: WaitingClock = {
  nowMs: () => performance.now(),
  every: (tick, intervalMs) => {
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * While a command waits, one line on `stream` says what for and for how long ("waiting for the reply in
 * session 3f9c2a1e… 12 s"), rewritten each second and erased when the wait ends. Only on a terminal: a
 * pipe or a file gets nothing, so stderr stays clean for scripts. Returns the function that ends it.
 */
export function showWaiting(stream: StatusStream | undefined, what: string, clock: WaitingClock = SYSTEM_CLOCK): () => void {
  if (stream?.isTTY !== true) return () => undefined;
  const startedMs = clock.nowMs();
  const draw = () => stream.write(`\r\u001b[2K${waitingText(what, clock.nowMs() - startedMs)}`);
  draw();
  const cancel = clock.every(draw, 1000);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    cancel();
    stream.write('\r\u001b[2K');
  };
}

/** "waiting for the reply in session 3f9c2a1e… 1 min 5 s (Ctrl-C stops waiting; the turn goes on)". */
export function waitingText(what: string, elapsedMs: number): string {
  const seconds = Math.max(0, Math.floor(elapsedMs / 1000));
  const elapsed = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `waiting for ${what}… ${elapsed} (Ctrl-C stops waiting; the turn goes on)`;
}
