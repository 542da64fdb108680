// Every stream has limits (age and size, per stream) so JetStream's store never fills up, and a full stream
// refuses new messages instead of dropping ones a consumer has not read yet: the outbox keeps the refused ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscardPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ensureStream } from '@relay/bus';
import { DEFAULT_STREAM_MAX_AGE_HOURS, DEFAULT_STREAM_MAX_BYTES } from '@relay/config';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';

let f: BusFixture;

beforeAll(async () => {
  f = await startBusFixture();
});

afterAll(async () => {
  await f?.close();
});

describe('ensureStream limits', () => {
  it('declares a stream with the default age and size limits, discarding new messages when full', async () => {
    await ensureStream(f.bus, { name: 'LIMITS_DEFAULT', subjects: ['relay.limitsdefault.v1.>'] });
    const { config } = await f.bus.jsm.streams.info('LIMITS_DEFAULT');
    expect(config).toMatchObject({ max_age: nanos(DEFAULT_STREAM_MAX_AGE_HOURS * 3_600_000), max_bytes: DEFAULT_STREAM_MAX_BYTES, discard: DiscardPolicy.New });
  });

  it('brings an existing stream to new limits (a setting changed at a rollout)', async () => {
    await ensureStream(f.bus, { name: 'LIMITS_CHANGED', subjects: ['relay.limitschanged.v1.>'] });
    await ensureStream(f.bus, { name: 'LIMITS_CHANGED', subjects: ['relay.limitschanged.v1.>'], maxAgeMs: 3_600_000, maxBytes: 2 * 1024 * 1024 });
    const { config } = await f.bus.jsm.streams.info('LIMITS_CHANGED');
    expect(config).toMatchObject({ max_age: nanos(3_600_000), max_bytes: 2 * 1024 * 1024, discard: DiscardPolicy.New });
  });

  it('a full stream refuses the next message and keeps every one it holds', async () => {
    await ensureStream(f.bus, { name: 'LIMITS_FULL', subjects: ['relay.limitsfull.v1.>'], maxBytes: 1024 * 1024 });
    const body = new Uint8Array(200 * 1024);
    let stored = 0;
    let refused: unknown;
    for (let n = 0; n < 10 && refused === undefined; n += 1) {
      try {
        await f.bus.js.publish('relay.limitsfull.v1.x', body);
        stored += 1;
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toBeDefined();
    expect(stored).toBeGreaterThan(0);
    const { state } = await f.bus.jsm.streams.info('LIMITS_FULL');
    expect({ messages: state.messages, first: state.first_seq }).toEqual({ messages: stored, first: 1 });
  });
});
