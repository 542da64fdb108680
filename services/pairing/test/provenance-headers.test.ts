import { describe, expect, it } from 'vitest';
import { PROVENANCE_HEADERS } from '@relay/rpc';
import { provenanceHeaders } from '../src/adapters/http/relay-client.ts';

const provenance = { originRelay: 'desk', originSessionId: 's1', originSessionTitle: 'Lead · ünïcode', model: 'script-1', hops: 2 };

describe('provenanceHeaders', () => {
  it('sends the chain of relays oldest first, each name percent-encoded so a comma inside one does not split the list', () => {
    const headers = provenanceHeaders({ ...provenance, viaRelays: ['north, 2', 'desk'] });
    expect(headers[PROVENANCE_HEADERS.viaRelays]).toBe('north%2C%202,desk');
    expect(headers[PROVENANCE_HEADERS.viaRelays]!.split(',').map(decodeURIComponent)).toEqual(['north, 2', 'desk']);
    expect(headers[PROVENANCE_HEADERS.hops]).toBe('2');
  });
  it('sends no chain header for an empty chain (the receiving relay then counts only the caller)', () => {
    expect(Object.keys(provenanceHeaders({ ...provenance, viaRelays: [] }))).not.toContain(PROVENANCE_HEADERS.viaRelays);
  });
});
