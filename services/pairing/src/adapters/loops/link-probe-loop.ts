/**
 * Every 30 s (relay time) asks each paired relay who it is (probeLinks), so `online` and `version` stay current.
 * Every replica may probe: the answer only overwrites the same two columns.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { probeLinks } from '../../app/probe-links.ts';
import type { PairedRelayStore, RelayLink } from '../../app/ports.ts';

/** Between probes of the paired relays (relay time). */
export const PROBE_EVERY_MS = 30_000;

export class LinkProbeLoop {
  #stopped = false;
  #wake = new AbortController();
  #running: Promise<void> | undefined;

  constructor(private readonly deps: { relays: PairedRelayStore; link: RelayLink; clock: Clock; logger: Logger }) {}

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { clock, logger } = this.deps;
    while (!this.#stopped) {
      this.#wake = new AbortController();
      await probeLinks(this.deps, clock.now()).catch((error: unknown) => logger.warn({ err: error }, 'probing the paired relays failed'));
      await clock.sleep(PROBE_EVERY_MS, this.#wake.signal).catch(() => undefined);
    }
  }
}
