import { describe, expect, it } from 'vitest';
import { Lifecycle, StopRequested } from '../src/lifecycle.ts';

const quiet = { info: () => undefined, warn: () => undefined };

describe('Lifecycle', () => {
  it('stops resources last-started first, and keeps going past a failure', async () => {
    const lifecycle = new Lifecycle();
    const order: string[] = [];
    lifecycle.add({ name: 'postgres', stop: async () => void order.push('postgres') });
    lifecycle.add({ name: 'nats', stop: async () => Promise.reject(new Error('gone')).finally(() => order.push('nats')) });
    lifecycle.add({ name: 'gateway', stop: async () => void order.push('gateway') });
    const warnings: string[] = [];
    await lifecycle.shutdown({ info: () => undefined, warn: (message) => warnings.push(message) });
    expect(order).toEqual(['gateway', 'nats', 'postgres']);
    expect(warnings).toEqual(['stopping nats failed: gone']);
  });

  it('keeps the first reason to stop', () => {
    const lifecycle = new Lifecycle();
    lifecycle.requestStop();
    lifecycle.requestStop('session exited with code 1');
    expect(lifecycle.signal.aborted).toBe(true);
    expect(lifecycle.failure).toBeUndefined();
  });

  it('registers a resource started after a stop request, then makes startup unwind', async () => {
    const lifecycle = new Lifecycle();
    const stopped: string[] = [];
    lifecycle.requestStop('nats-server exited with code 1');
    expect(() => lifecycle.add({ name: 'postgres', stop: async () => void stopped.push('postgres') })).toThrow(StopRequested);
    await lifecycle.shutdown(quiet);
    expect(stopped).toEqual(['postgres']);
    expect(lifecycle.failure).toBe('nats-server exited with code 1');
  });

  it('kills everything still listed, the one being stopped included', async () => {
    const lifecycle = new Lifecycle();
    const killed: string[] = [];
    let release = () => undefined as void;
    lifecycle.add({ name: 'postgres', stop: async () => undefined, kill: () => killed.push('postgres') });
    lifecycle.add({ name: 'gateway', stop: () => new Promise<void>((resolve) => (release = resolve)), kill: () => killed.push('gateway') });
    const shutdown = lifecycle.shutdown(quiet);
    lifecycle.kill();
    expect(killed).toEqual(['gateway', 'postgres']);
    release();
    await shutdown;
  });
});
