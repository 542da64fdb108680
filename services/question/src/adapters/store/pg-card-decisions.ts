import pg from 'pg';
import type { Logger } from '@relay/telemetry';
import type { CardDecisions } from '../../app/ports.ts';

/** The PostgreSQL channel a decision is announced on, with the card id as payload, when its transaction commits. */
export const CARD_DECIDED_CHANNEL = 'question_card_decided';

export interface PgCardDecisionsOptions {
  connectionString: string;
  logger: Logger;
  /** How long to wait before listening again after the connection drops; default 1000. */
  reconnectDelayMs?: number;
}

/**
 * CardDecisions over PostgreSQL LISTEN/NOTIFY: every replica hears every decision, whichever replica
 * wrote it. One connection per process; watchers are told again after a reconnect, since a
 * notification sent while it was down is lost.
 */
export class PgCardDecisions implements CardDecisions {
  private readonly watchers = new Map<string, Set<() => void>>();
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: PgCardDecisionsOptions) {}

  /** Connects and listens; rejects when the database cannot be reached. */
  async start(): Promise<void> {
    await this.connect();
  }

  watch(cardId: string, onDecided: () => void): () => void {
    let set = this.watchers.get(cardId);
    if (set === undefined) {
      set = new Set();
      this.watchers.set(cardId, set);
    }
    set.add(onDecided);
    return () => {
      set.delete(onDecided);
      if (set.size === 0 && this.watchers.get(cardId) === set) this.watchers.delete(cardId);
    };
  }

  /** Stops listening and closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString });
    client.on('notification', (message) => {
      if (message.channel === CARD_DECIDED_CHANNEL && message.payload !== undefined) this.tell(this.watchers.get(message.payload));
    });
    client.on('error', (error) => {
      this.options.logger.warn({ err: error }, 'card decision listener lost its connection');
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CARD_DECIDED_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.stopped || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect().then(
        () => {
          if (this.stopped) return void this.stop();
          this.options.logger.info('card decision listener listening again');
          for (const set of this.watchers.values()) this.tell(set);
        },
        (error: unknown) => {
          this.options.logger.warn({ err: error }, 'card decision listener could not reconnect');
          this.reconnect();
        },
      );
    }, this.options.reconnectDelayMs ?? 1000);
    this.retry.unref();
  }

  private tell(set: Set<() => void> | undefined): void {
    for (const onDecided of [...(set ?? [])]) onDecided();
  }
}
