import { describe, expect, it } from 'vitest';
import type { Provenance } from '@relay/proto/relay/session/v1/session';
import { chainThrough, relayChain } from '../src/domain/provenance.ts';

const provenance = (hops: number, originRelay: string, viaRelays: string[]): Provenance => ({
  originRelay,
  originSessionId: 's',
  originSessionTitle: 'S',
  model: 'm',
  hops,
  viaRelays,
});

describe('relayChain', () => {
  it('is the chain the prompt carries, oldest first', () => {
    expect(relayChain(provenance(2, 'b', ['a', 'b']))).toEqual(['a', 'b']);
  });
  it("is none for a user's turn or a prompt that stayed on its relay", () => {
    expect(relayChain(undefined)).toEqual([]);
    expect(relayChain(provenance(0, 'here', []))).toEqual([]);
  });
  it('is the origin relay alone for a prompt from a relay that predates the chain', () => {
    expect(relayChain(provenance(1, 'old-relay', []))).toEqual(['old-relay']);
  });
});

describe('chainThrough', () => {
  it('appends the relay that passes the prompt on', () => {
    expect(chainThrough([], 'a')).toEqual(['a']);
    expect(chainThrough(['a'], 'b')).toEqual(['a', 'b']);
  });
  it('does not repeat a relay already last (any case), and spells it as given', () => {
    expect(chainThrough(['a', 'B'], 'b')).toEqual(['a', 'b']);
  });
});
