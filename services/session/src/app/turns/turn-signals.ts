/**
 * In-process nudges between the parts of the turn runtime: "there may be work" for the runner
 * (a turn was queued, a stop was asked for) and "this turn ended" for waits. They only make things
 * prompt; the database stays the truth, and everything that listens also polls it.
 */
export class TurnSignals {
  readonly #work = new Set<() => void>();
  readonly #ended = new Map<string, Set<() => void>>();

  /** Calls `listener` whenever there may be work for the runner; returns the unsubscribe. */
  onWork(listener: () => void): () => void {
    this.#work.add(listener);
    return () => this.#work.delete(listener);
  }

  /** A turn was queued or a stop was requested. */
  work(): void {
    for (const listener of this.#work) listener();
  }

  /** Calls `listener` when the turn is said to have ended; returns the unsubscribe. */
  onEnded(turnId: string, listener: () => void): () => void {
    const listeners = this.#ended.get(turnId) ?? new Set();
    listeners.add(listener);
    this.#ended.set(turnId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#ended.delete(turnId);
    };
  }

  /** The turn ended (here, or on another replica as turn_ended said). */
  ended(turnId: string): void {
    for (const listener of this.#ended.get(turnId) ?? []) listener();
  }
}
