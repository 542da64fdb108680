import { enqueue } from '@relay/bus';
import { PairingEvents } from '@relay/proto/relay/bus-contracts';
import type { AgentLevel, PairedRelay } from '../../domain/paired-relay.ts';
import type { PairedRelayStore, UnpairedEvent } from '../../app/ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

type Row = Awaited<ReturnType<PrismaClient['pairedRelay']['findMany']>>[number];

/** The paired relays in PostgreSQL. */
export class PrismaPairedRelayStore implements PairedRelayStore {
  constructor(private readonly prisma: PrismaClient) {}

  async list(): Promise<PairedRelay[]> {
    return (await this.prisma.pairedRelay.findMany({ orderBy: { name: 'asc' } })).map(toRelay);
  }

  async find(name: string): Promise<PairedRelay | undefined> {
    const row = await this.prisma.pairedRelay.findUnique({ where: { nameKey: name.toLowerCase() } });
    return row ? toRelay(row) : undefined;
  }

  async findByInboundHash(hash: string): Promise<PairedRelay | undefined> {
    const row = await this.prisma.pairedRelay.findUnique({ where: { inboundTokenHash: hash } });
    return row ? toRelay(row) : undefined;
  }

  async findByUrl(url: string): Promise<PairedRelay | undefined> {
    const row = await this.prisma.pairedRelay.findUnique({ where: { url } });
    return row ? toRelay(row) : undefined;
  }

  async add(relay: PairedRelay): Promise<PairedRelay | undefined> {
    // ON CONFLICT DO NOTHING on every unique key (name, its lower case, the URL): a race keeps the first.
    const { count } = await this.prisma.pairedRelay.createMany({
      data: [
        {
          name: relay.name,
          nameKey: relay.name.toLowerCase(),
          url: relay.url,
          level: relay.level,
          ownerUserId: relay.ownerUserId,
          inboundTokenHash: relay.inboundTokenHash,
          outboundToken: relay.outboundToken,
          version: relay.version,
          online: relay.online,
          lastContactAt: relay.createdAt,
          createdAt: relay.createdAt,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 1) return undefined;
    const existing = (await this.find(relay.name)) ?? (await this.findByUrl(relay.url));
    // Only the inbound token hash is left to collide on, and it is 256 fresh random bits: a fault, not a refusal.
    if (existing === undefined) throw new Error('a new pairing collided with no pairing by name or URL');
    return existing;
  }

  async remove(name: string, event: UnpairedEvent): Promise<PairedRelay | undefined> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.pairedRelay.findUnique({ where: { nameKey: name.toLowerCase() } });
      if (row === null) return undefined;
      await tx.pairedRelay.delete({ where: { name: row.name } });
      await enqueue(tx, PairingEvents.UNPAIRED, { eventId: event.eventId, occurredAt: event.occurredAt, relay: row.name }, { id: event.eventId });
      return toRelay(row);
    });
  }

  async setLevel(name: string, level: AgentLevel): Promise<PairedRelay | undefined> {
    const relay = await this.find(name);
    if (relay === undefined) return undefined;
    return toRelay(await this.prisma.pairedRelay.update({ where: { name: relay.name }, data: { level } }));
  }

  async noteContact(name: string, contact: { online: boolean; version?: string; at: Date }): Promise<void> {
    await this.prisma.pairedRelay.updateMany({
      where: { name },
      data: { online: contact.online, lastContactAt: contact.at, ...(contact.version === undefined ? {} : { version: contact.version }) },
    });
  }
}

function toRelay(row: Row): PairedRelay {
  return {
    name: row.name,
    url: row.url,
    level: row.level,
    ownerUserId: row.ownerUserId,
    inboundTokenHash: row.inboundTokenHash,
    outboundToken: row.outboundToken,
    version: row.version,
    online: row.online,
    createdAt: row.createdAt,
  };
}
