// Steering across replicas over a real nats-server: the wake-up is consumed on one replica, the turn runs on
// another; the one running it takes the text and answers, and nobody answering means "queue it".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { createLogger } from '@relay/telemetry';
import { startNats, type NatsServer } from '@relay/testing';
import { ALWAYS_AVAILABLE, type Provider } from '../src/app/turns/provider.ts';
import { ProviderRegistry } from '../src/app/turns/provider-registry.ts';
import { busSteering } from '../src/adapters/bus/bus-steering.ts';

const logger = createLogger({ name: 'bus-steering-test', level: 'silent' });

/** A provider plug-in (our own port) that runs the turns of the sessions it is given, and records what is steered in. */
function steeringProvider(id: string, running: string[], canSteer = true): Provider & { steered: string[] } {
  const steered: string[] = [];
  return {
    id,
    canSteer,
    steered,
    availability: () => ALWAYS_AVAILABLE,
    listModels: async () => [],
    steer: (sessionId, text) => {
      if (!running.includes(sessionId)) return false;
      steered.push(`${sessionId}: ${text}`);
      return true;
    },
    startTurn: async () => ({ text: '', model: '' }),
  };
}

let nats: NatsServer;
let buses: Bus[] = [];
beforeAll(async () => {
  nats = await startNats();
  buses = await Promise.all(['a', 'b'].map((name) => connectBus({ url: nats.url, name: `replica-${name}`, logger, ...nats.credentials('session') })));
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await nats?.stop();
});

it('steers into the turn another replica runs; queues (false) when no replica runs it or the provider does not steer', async () => {
  const onA = steeringProvider('claude', []);
  const onB = steeringProvider('claude', ['s-1']);
  const scriptOnB = steeringProvider('script', ['s-2'], false);
  const a = busSteering(buses[0]!, new ProviderRegistry([onA, steeringProvider('script', [], false)]), logger);
  const b = busSteering(buses[1]!, new ProviderRegistry([onB, scriptOnB]), logger);
  await Promise.all(buses.map((bus) => bus.nc.flush()));
  try {
    expect(await a.steer('claude', 's-1', 'row')).toBe(true);
    expect(onB.steered).toEqual(['s-1: row']);
    expect(onA.steered).toEqual([]);

    expect(await a.steer('claude', 's-9', 'row')).toBe(false);
    expect(await a.steer('script', 's-2', 'row')).toBe(false);
    expect(scriptOnB.steered).toEqual([]);

    // The replica running the turn takes it without asking anyone.
    expect(await b.steer('claude', 's-1', 'again')).toBe(true);
    expect(onB.steered).toEqual(['s-1: row', 's-1: again']);
  } finally {
    a.stop();
    b.stop();
  }
});
