import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ExternalCallStore } from '../../app/external/external-calls.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/** External sessions' calls in flight, one row per call in external_calls. */
export class PrismaExternalCalls implements ExternalCallStore {
  constructor(private readonly db: PrismaClient) {}

  async hold(sessionId: string, callId: string, expiresAt: Date, now: Date): Promise<void> {
    await this.db.$transaction(async (tx: Db) => {
      await tx.externalCall.deleteMany({ where: { sessionId, expiresAt: { lte: now } } });
      await tx.externalCall.upsert({
        where: { sessionId_callId: { sessionId, callId } },
        create: { sessionId, callId, expiresAt },
        update: { expiresAt },
      });
    });
  }

  async release(sessionId: string, callId: string): Promise<void> {
    await this.db.externalCall.deleteMany({ where: { sessionId, callId } });
  }

  async latestExpiries(sessionIds: readonly string[]): Promise<Map<string, Date>> {
    const rows = await this.db.externalCall.groupBy({
      by: ['sessionId'],
      where: { sessionId: { in: [...sessionIds] } },
      _max: { expiresAt: true },
    });
    return new Map(rows.flatMap((row) => (row._max.expiresAt === null ? [] : [[row.sessionId, row._max.expiresAt] as const])));
  }
}
