/**
 * The watches paired relays registered here and the events kept for them, in PostgreSQL. A watch's row is held
 * (`FOR UPDATE`) while events are appended to it or read from it, so replicas consuming the same stream give its
 * events consecutive seqs and a fetch never reads half an append.
 */
import { processOnce } from '@relay/bus';
import { keptBounds, readAfter, type BufferLimits } from '../../domain/remote-buffer.ts';
import type { KeptEvent, RegisteredWatch, RemoteWatchStore } from '../../app/remote-ports.ts';
import type { RemoteEventInput, RemoteWatch } from '../../domain/remote-watch.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';

type Tx = Prisma.TransactionClient;
type WatchRow = Awaited<ReturnType<PrismaClient['remoteWatch']['findMany']>>[number];

/** The processOnce consumer under which each computed event of a watch is kept once ever. */
const COMPUTED_CONSUMER = 'pairing-remote-computed';

function toWatch(row: WatchRow): RemoteWatch {
  return {
    relay: row.relay,
    id: row.id,
    userId: row.userId,
    scope: row.scope === 'all' ? 'all' : 'sessions',
    sessions: row.sessions as RemoteWatch['sessions'],
    exclude: row.exclude as string[],
    events: row.events as string[],
    stalledMinutes: row.stalledMinutes,
    heartbeatMinutes: row.heartbeatMinutes,
  };
}

export class PrismaRemoteWatchStore implements RemoteWatchStore {
  readonly #prisma: PrismaClient;
  readonly #limits: BufferLimits;

  constructor(prisma: PrismaClient, limits: BufferLimits) {
    this.#prisma = prisma;
    this.#limits = limits;
  }

  async keep(watch: RemoteWatch, now: Date): Promise<void> {
    await this.#prisma.remoteWatch.upsert({
      where: { relay_id: { relay: watch.relay, id: watch.id } },
      update: {},
      create: {
        relay: watch.relay,
        id: watch.id,
        userId: watch.userId,
        scope: watch.scope,
        sessions: watch.sessions,
        exclude: watch.exclude,
        events: watch.events,
        stalledMinutes: watch.stalledMinutes,
        heartbeatMinutes: watch.heartbeatMinutes,
        createdAt: now,
      },
    });
  }

  async end(relay: string, id: string): Promise<boolean> {
    const { count } = await this.#prisma.remoteWatch.deleteMany({ where: { relay, id } });
    return count > 0;
  }

  async endRelay(relay: string): Promise<number> {
    const { count } = await this.#prisma.remoteWatch.deleteMany({ where: { relay } });
    return count;
  }

  async append(
    consumer: string,
    messageId: string,
    events: RemoteEventInput[],
    keeps: (watch: RemoteWatch, event: RemoteEventInput) => boolean,
    now: Date,
  ): Promise<void> {
    await this.#prisma.$transaction(async (tx) => {
      if (!(await processOnce(tx, consumer, messageId))) return;
      const userIds = [...new Set(events.map((event) => event.userId))];
      if (userIds.length === 0) return;
      await tx.$queryRaw`SELECT relay FROM remote_watches WHERE user_id = ANY(${userIds}) ORDER BY relay, id FOR UPDATE`;
      const watches = await tx.remoteWatch.findMany({ where: { userId: { in: userIds } }, orderBy: [{ relay: 'asc' }, { id: 'asc' }] });
      for (const row of watches) {
        const watch = toWatch(row);
        await this.#keep(
          tx,
          watch,
          row.lastSeq,
          events.filter((event) => keeps(watch, event)),
          now,
        );
      }
    });
  }

  async list(): Promise<RegisteredWatch[]> {
    const rows = await this.#prisma.remoteWatch.findMany({ orderBy: [{ relay: 'asc' }, { id: 'asc' }] });
    return rows.map((row) => ({ ...toWatch(row), createdAt: row.createdAt }));
  }

  async keepComputed(relay: string, id: string, events: RemoteEventInput[], now: Date): Promise<number> {
    return this.#prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT relay FROM remote_watches WHERE relay = ${relay} AND id = ${id} FOR UPDATE`;
      const row = await tx.remoteWatch.findUnique({ where: { relay_id: { relay, id } } });
      if (row === null) return 0;
      const fresh: RemoteEventInput[] = [];
      for (const event of events) {
        if (await processOnce(tx, COMPUTED_CONSUMER, `${relay}/${id}/${event.id}`)) fresh.push(event);
      }
      return this.#keep(tx, toWatch(row), row.lastSeq, fresh, now);
    });
  }

  async fetch(
    relay: string,
    id: string,
    after: number,
    now: Date,
  ): Promise<{ events: KeptEvent[]; cursor: number; dropped: number; userId: string } | undefined> {
    return this.#prisma.$transaction(async (tx) => {
      const held = await tx.$queryRaw<{ last_seq: number }[]>`SELECT last_seq FROM remote_watches WHERE relay = ${relay} AND id = ${id} FOR UPDATE`;
      const row = await tx.remoteWatch.findUnique({ where: { relay_id: { relay, id } } });
      if (held.length === 0 || row === null) return undefined;
      // Asking past a seq acknowledges everything up to it.
      await tx.remoteWatchEvent.deleteMany({ where: { relay, watchId: id, seq: { lte: after } } });
      await this.#prune(tx, relay, id, row.lastSeq, now);
      const kept = await tx.remoteWatchEvent.findMany({ where: { relay, watchId: id }, orderBy: { seq: 'asc' } });
      const titles = new Map(toWatch(row).sessions.map((session) => [session.id, session.title]));
      const page = readAfter(
        kept.map((event) => ({
          seq: event.seq,
          id: event.eventId,
          kind: event.kind,
          sessionId: event.sessionId,
          sessionTitle: titles.get(event.sessionId) ?? '',
          text: event.text,
          status: event.status,
          refId: event.refId,
          occurredAt: event.occurredAt,
        })),
        after,
        row.lastSeq,
        now,
        this.#limits,
      );
      return { ...page, userId: row.userId };
    });
  }

  /** Appends events to a locked watch after its seq `lastSeq` (an event id it holds is skipped); answers how many. */
  async #keep(tx: Tx, watch: RemoteWatch, lastSeq: number, events: RemoteEventInput[], now: Date): Promise<number> {
    let seq = lastSeq;
    for (const event of events) {
      const inserted = await tx.$executeRaw`
        INSERT INTO remote_watch_events (relay, watch_id, seq, event_id, kind, session_id, text, status, ref_id, occurred_at)
        VALUES (${watch.relay}, ${watch.id}, ${seq + 1}, ${event.id}, ${event.kind}, ${event.sessionId}, ${event.text}, ${event.status}, ${event.refId}, ${event.occurredAt})
        ON CONFLICT (relay, watch_id, event_id) DO NOTHING`;
      if (inserted === 1) seq += 1;
    }
    if (seq === lastSeq) return 0;
    await tx.remoteWatch.update({ where: { relay_id: { relay: watch.relay, id: watch.id } }, data: { lastSeq: seq } });
    await this.#prune(tx, watch.relay, watch.id, seq, now);
    return seq - lastSeq;
  }

  async #prune(tx: Tx, relay: string, watchId: string, lastSeq: number, now: Date): Promise<void> {
    const { minSeq, since } = keptBounds(lastSeq, now, this.#limits);
    await tx.remoteWatchEvent.deleteMany({ where: { relay, watchId, OR: [{ seq: { lt: minSeq } }, { occurredAt: { lt: since } }] } });
  }
}
