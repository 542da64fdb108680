import type { PairedRelay } from '../domain/paired-relay.ts';
import type { PairedRelayStore } from '../domain/ports.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** The paired relays in PostgreSQL. */
export class PrismaPairedRelayStore implements PairedRelayStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async list(): Promise<PairedRelay[]> {
    const rows = await this.#prisma.pairedRelay.findMany({ orderBy: { name: 'asc' } });
    return rows.map((row) => ({
      name: row.name,
      url: row.url,
      level: row.level,
      acceptPrompts: row.acceptPrompts,
      createdAt: row.createdAt,
    }));
  }
}
