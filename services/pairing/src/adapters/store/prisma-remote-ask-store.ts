/**
 * This relay's asks on paired relays, in PostgreSQL: replicas take due rows with `FOR UPDATE SKIP LOCKED` and
 * lease them for one poll, so no ask is polled twice at once.
 */
import type { PolledAsk } from '../../domain/remote-asks.ts';
import type { RemoteAskStore } from '../../app/remote-ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

type Row = { relay: string; id: string; user_id: string; asking_session_id: string; online: boolean };

export class PrismaRemoteAskStore implements RemoteAskStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async keep(ask: PolledAsk, now: Date): Promise<void> {
    await this.#prisma.remoteAsk.upsert({
      where: { relay_id: { relay: ask.relay, id: ask.id } },
      update: {},
      create: { relay: ask.relay, id: ask.id, userId: ask.userId, askingSessionId: ask.askingSessionId, online: ask.online, nextPollAt: now, createdAt: now },
    });
  }

  async drop(relay: string, id: string): Promise<void> {
    await this.#prisma.remoteAsk.deleteMany({ where: { relay, id } });
  }

  async dropRelay(relay: string): Promise<number> {
    return (await this.#prisma.remoteAsk.deleteMany({ where: { relay } })).count;
  }

  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<PolledAsk[]> {
    const rows = await this.#prisma.$queryRaw<Row[]>`
      UPDATE remote_asks SET lease_until = ${leaseUntil}
      WHERE (relay, id) IN (
        SELECT relay, id FROM remote_asks
        WHERE next_poll_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY next_poll_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING relay, id, user_id, asking_session_id, online`;
    return rows.map((row) => ({ relay: row.relay, id: row.id, userId: row.user_id, askingSessionId: row.asking_session_id, online: row.online }));
  }

  async nextDueAt(): Promise<Date | undefined> {
    const { _min } = await this.#prisma.remoteAsk.aggregate({ _min: { nextPollAt: true } });
    return _min.nextPollAt ?? undefined;
  }

  async settle(relay: string, id: string, online: boolean, nextPollAt: Date): Promise<void> {
    await this.#prisma.remoteAsk.updateMany({ where: { relay, id }, data: { online, nextPollAt, leaseUntil: null } });
  }
}
