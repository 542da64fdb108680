import type { PairingCodeStore } from '../../app/ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** Pairing codes in PostgreSQL, as hashes. */
export class PrismaPairingCodeStore implements PairingCodeStore {
  constructor(private readonly prisma: PrismaClient) {}

  async add(code: { codeHash: string; userId: string; expiresAt: Date }): Promise<void> {
    await this.prisma.pairingCode.create({ data: code });
  }

  async spend(codeHash: string, now: Date): Promise<string | undefined> {
    // One conditional UPDATE: of two relays racing with the same code, exactly one gets its row.
    const rows = await this.prisma.$queryRawUnsafe<{ user_id: string }[]>(
      'UPDATE "pairing_codes" SET "used_at" = $2 WHERE "code_hash" = $1 AND "used_at" IS NULL AND "expires_at" > $2 RETURNING "user_id"',
      codeHash,
      now,
    );
    return rows[0]?.user_id;
  }

  async dropUnspentOf(userId: string): Promise<number> {
    return (await this.prisma.pairingCode.deleteMany({ where: { userId, usedAt: null } })).count;
  }
}
