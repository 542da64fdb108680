// A removed user's pairings and unspent codes end (endUserPairings), each pairing as an unpair does (announced with an
// id from the removal's), others' stay, and a redelivery of the removal changes nothing.
import { describe, expect, it } from 'vitest';
import { endUserPairings } from '../src/app/end-user-pairings.ts';
import type { PairedRelayStore, PairingCodeStore, UnpairedEvent } from '../src/app/ports.ts';
import type { PairedRelay } from '../src/domain/paired-relay.ts';

const NOW = new Date('2026-12-07T10:00:00.000Z');

function relay(name: string, ownerUserId: string): PairedRelay {
  return {
    name,
    url: `https://${name}.example.com`,
    level: 'full',
    ownerUserId,
    inboundTokenHash: `hash-${name}`,
    outboundToken: 'rly_r_x',
    version: '',
    online: true,
    createdAt: NOW,
  };
}

function fakes() {
  const relays = new Map([relay('far', 'u-bob'), relay('Lab', 'u-bob'), relay('desk', 'u-ada')].map((one) => [one.name, one]));
  const announced: UnpairedEvent[] = [];
  const codes = [
    { userId: 'u-bob', used: false },
    { userId: 'u-bob', used: true },
    { userId: 'u-ada', used: false },
  ];
  const relayStore = {
    async list() {
      return [...relays.values()];
    },
    async remove(name: string, event: UnpairedEvent) {
      const found = relays.get(name);
      if (found === undefined) return undefined;
      relays.delete(name);
      announced.push(event);
      return found;
    },
  } as unknown as PairedRelayStore;
  const codeStore = {
    async dropUnspentOf(userId: string) {
      const dropped = codes.filter((code) => code.userId === userId && !code.used);
      for (const code of dropped) codes.splice(codes.indexOf(code), 1);
      return dropped.length;
    },
  } as unknown as PairingCodeStore;
  return { deps: { relays: relayStore, codes: codeStore }, relays, announced, codes };
}

describe('a removed user', () => {
  it('ends every pairing they made, announced as unpaired, and drops their unspent codes; others stay', async () => {
    const { deps, relays, announced, codes } = fakes();
    const ended = await endUserPairings(deps, { eventId: 'user_removed:u-bob', userId: 'u-bob' }, NOW);
    expect(ended).toEqual({ unpaired: ['far', 'Lab'], codes: 1 });
    expect([...relays.keys()]).toEqual(['desk']);
    expect(announced).toEqual([
      { eventId: 'user_removed:u-bob:far', occurredAt: NOW, relay: 'far' },
      { eventId: 'user_removed:u-bob:lab', occurredAt: NOW, relay: 'Lab' },
    ]);
    expect(codes).toEqual([
      { userId: 'u-bob', used: true },
      { userId: 'u-ada', used: false },
    ]);
  });

  it('a redelivery of the removal changes nothing', async () => {
    const { deps, relays, announced } = fakes();
    await endUserPairings(deps, { eventId: 'user_removed:u-bob', userId: 'u-bob' }, NOW);
    expect(await endUserPairings(deps, { eventId: 'user_removed:u-bob', userId: 'u-bob' }, NOW)).toEqual({ unpaired: [], codes: 0 });
    expect([...relays.keys()]).toEqual(['desk']);
    expect(announced).toHaveLength(2);
  });
});
