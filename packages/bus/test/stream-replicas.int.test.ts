// NATS_STREAM_REPLICAS reaches JetStream: on a real three-node cluster ensureStream creates a stream with three
// copies, and raises one declared with a single copy (a relay first deployed before the setting) to three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, ensureStream, type Bus, type StreamOptions } from '@relay/bus';
import { createLogger } from '@relay/telemetry';
import { startNatsCluster, type NatsCluster } from './fixtures/nats-cluster.ts';

const logger = createLogger({ name: 'stream-replicas-test', level: 'silent' });
let cluster: NatsCluster;
let bus: Bus;

/** Runs `attempt` until it succeeds, while the new cluster elects its JetStream leaders. */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const declare = (options: StreamOptions) => retried(() => ensureStream(bus, options));

async function replicasOf(stream: string): Promise<{ configured: number; copies: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // A stream just made may not be known yet to the server that answers: ask again while the cluster agrees.
    const info = await retried(() => bus.jsm.streams.info(stream));
    const copies = 1 + (info.cluster?.replicas?.length ?? 0);
    // The cluster adds the new copies in the background after an update.
    if (copies === info.config.num_replicas || Date.now() > deadline) return { configured: info.config.num_replicas, copies };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  cluster = await startNatsCluster();
  bus = await retried(() => connectBus({ url: cluster.url, name: 'stream-replicas-test', logger }));
});

afterAll(async () => {
  await bus?.close();
  await cluster?.stop();
});

describe('ensureStream replicas', () => {
  it('creates a stream with three copies on a three-node cluster', async () => {
    await declare({ name: 'REPLICATED', subjects: ['relay.replicated.v1.>'], replicas: 3 });
    expect(await replicasOf('REPLICATED')).toEqual({ configured: 3, copies: 3 });
  });

  it('raises a stream declared with one copy to three, keeping its subjects', async () => {
    await declare({ name: 'RAISED', subjects: ['relay.raised.v1.a'] });
    expect(await replicasOf('RAISED')).toEqual({ configured: 1, copies: 1 });
    await declare({ name: 'RAISED', subjects: ['relay.raised.v1.b'], replicas: 3 });
    expect(await replicasOf('RAISED')).toEqual({ configured: 3, copies: 3 });
    expect((await bus.jsm.streams.info('RAISED')).config.subjects).toEqual(['relay.raised.v1.a', 'relay.raised.v1.b']);
  });
});
