import type { Logger } from '@relay/telemetry';

/**
 * Writes a turn's reply-so-far at most once per interval (real time): the first piece at once, then
 * the latest text when the interval is over. Writes never overlap and stop at close().
 */
export class InFlightWriter {
  #text = '';
  #written = '';
  #timer: NodeJS.Timeout | undefined;
  #lastWriteMs = Number.NEGATIVE_INFINITY;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly write: (text: string) => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Adds reply text; it is written now or at the end of the current interval. */
  append(delta: string): void {
    if (this.#closed) return;
    this.#text += delta;
    if (this.#timer !== undefined) return;
    const waitMs = this.#lastWriteMs + this.intervalMs - Date.now();
    if (waitMs <= 0) this.#flush();
    else this.#timer = setTimeout(() => this.#flush(), waitMs);
  }

  /** Stops writing and waits for the write in progress (the turn's end clears the column itself). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#chain;
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#closed || this.#text === this.#written) return;
    const text = this.#text;
    this.#lastWriteMs = Date.now();
    this.#chain = this.#chain.then(async () => {
      try {
        await this.write(text);
        this.#written = text;
      } catch (error) {
        this.logger.warn({ err: error }, 'could not write the reply in flight');
      }
    });
  }
}
