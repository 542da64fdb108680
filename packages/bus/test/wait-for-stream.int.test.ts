import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureStream, waitForStream } from '@relay/bus';
import { startBusFixture, type BusFixture } from './fixtures/bus-fixture.ts';

let f: BusFixture;

beforeAll(async () => {
  f = await startBusFixture();
});

afterAll(async () => {
  await f?.close();
});

it('answers true once the publisher declares the stream, however late', async () => {
  const waiting = waitForStream(f.bus, 'WAIT_TEST_LATE', { logger: f.logger });
  let settled = false;
  void waiting.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(settled).toBe(false);
  await ensureStream(f.bus, { name: 'WAIT_TEST_LATE', subjects: ['relay.waitlate.v1.>'] });
  expect(await waiting).toBe(true);
});

it('answers true at once for a stream that exists', async () => {
  await ensureStream(f.bus, { name: 'WAIT_TEST_THERE', subjects: ['relay.waitthere.v1.>'] });
  expect(await waitForStream(f.bus, 'WAIT_TEST_THERE', { logger: f.logger })).toBe(true);
});

it('answers false when the service stops before the stream is declared', async () => {
  const stopping = new AbortController();
  const waiting = waitForStream(f.bus, 'WAIT_TEST_NEVER', { logger: f.logger, signal: stopping.signal });
  stopping.abort();
  expect(await waiting).toBe(false);
});
