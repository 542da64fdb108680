import type { PairingSettingsStore } from '../../app/ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** This relay's pairing settings: one row, made with its defaults on first change. */
export class PrismaPairingSettingsStore implements PairingSettingsStore {
  constructor(private readonly prisma: PrismaClient) {}

  async get(): Promise<{ acceptPrompts: boolean }> {
    const row = await this.prisma.pairingSettings.findUnique({ where: { id: 1 } });
    return { acceptPrompts: row?.acceptPrompts ?? true };
  }

  async set(change: { acceptPrompts?: boolean }): Promise<{ acceptPrompts: boolean }> {
    const row = await this.prisma.pairingSettings.upsert({ where: { id: 1 }, create: { id: 1, ...change }, update: change });
    return { acceptPrompts: row.acceptPrompts };
  }
}
