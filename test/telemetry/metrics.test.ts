// Metrics as data: a relay exports OTLP metrics to a receiver on loopback, given only OTEL_EXPORTER_OTLP_ENDPOINT
// (and a short OTEL_METRIC_EXPORT_INTERVAL). A relay_tool call, the gRPC calls behind it, a consumed event and a
// scheduled firing arrive with their names, UCUM units and attributes; the subscription service reports its gauges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startRelay, type Relay } from '../harness/relay.ts';
import { OtlpReceiver } from '../harness/otlp-receiver.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let agent: Client;
const receiver = new OtlpReceiver();

/** What a wait for metrics shows when they never come. */
const seen = { timeoutMs: 60_000, detail: () => `metrics seen: ${[...new Set(receiver.points.map((p) => `${p.service}:${p.name}`))].join(', ')}` };

/** The latest exported point of `name` from `service` with these attributes. */
const point = (service: string, name: string, attributes: Record<string, unknown> = {}) =>
  receiver
    .metric(name)
    .filter((p) => p.service === service && Object.entries(attributes).every(([key, value]) => p.attributes[key] === value))
    .at(-1);

beforeAll(async () => {
  await receiver.start();
  relay = await startRelay({
    name: 'measured',
    otlpEndpoint: receiver.endpoint,
    // One relay minute per real second, so a schedule's first minute passes quickly.
    env: { OTEL_METRIC_EXPORT_INTERVAL: '500', RELAY_CLOCK: `${new Date().toISOString()}@60x` },
  });
  const caller = await relay.createExternalSession('Measured');
  agent = await relay.connectAgent(caller.token);
});

afterAll(async () => {
  await agent?.close();
  await relay?.stop();
  await receiver.stop();
});

describe('relay_tool RED', () => {
  it('counts and times each call by action and outcome, with the code of a refusal', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'read_session', session: 'no-such-session' } });

    const calls = await until(
      'relay.tool.calls for list_sessions',
      () => point('relay-gateway', 'relay.tool.calls', { 'relay.tool.action': 'list_sessions', 'relay.tool.outcome': 'ok' }),
      seen,
    );
    expect(calls).toMatchObject({ unit: '{call}', kind: 'sum' });
    expect(calls.value).toBeGreaterThanOrEqual(1);
    const duration = await until(
      'relay.tool.duration for list_sessions',
      () => point('relay-gateway', 'relay.tool.duration', { 'relay.tool.action': 'list_sessions' }),
      seen,
    );
    expect(duration).toMatchObject({ unit: 's', kind: 'histogram' });
    expect(duration.count).toBeGreaterThanOrEqual(1);

    const refused = await until(
      'relay.tool.calls for a refused read_session',
      () => point('relay-gateway', 'relay.tool.calls', { 'relay.tool.action': 'read_session', 'relay.tool.outcome': 'refused' }),
      seen,
    );
    expect(refused.attributes['relay.tool.code']).toMatch(/^REMOTE_RELAY_/);
  });
});

describe('gRPC RED', () => {
  it('times each served method in seconds by method and status code', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    const served = await until(
      'rpc.server.call.duration of ListSessions',
      () =>
        point('relay-session', 'rpc.server.call.duration', { 'rpc.method': 'relay.session.v1.SessionService/ListSessions', 'rpc.response.status_code': 'OK' }),
      seen,
    );
    expect(served).toMatchObject({ unit: 's', kind: 'histogram', attributes: { 'rpc.system.name': 'grpc' } });
    expect(served.count).toBeGreaterThanOrEqual(1);
  });
});

describe('bus consumers', () => {
  it('count each message they settle by consumer and outcome', async () => {
    await relay.createExternalSession('Measured event');
    const processed = await until(
      'messaging.process.duration of the subscription service',
      () =>
        point('relay-subscription', 'messaging.process.duration', {
          'messaging.consumer.group.name': 'subscription-session-events',
          'relay.bus.outcome': 'ack',
        }),
      seen,
    );
    expect(processed).toMatchObject({ unit: 's', kind: 'histogram', attributes: { 'messaging.system': 'nats' } });
    expect(processed.count).toBeGreaterThanOrEqual(1);
  });
});

describe('scheduler firing lateness', () => {
  it('records each firing, in seconds after its due instant', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'script',
      title: 'Measured ticker',
      text: `relay_tool ${JSON.stringify({ action: 'schedule', title: 'Tick', text: 'reply tick', every_minutes: 1 })}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const lateness = await until('relay.scheduler.firing.lateness', () => point('relay-scheduler', 'relay.scheduler.firing.lateness'), {
      ...seen,
      timeoutMs: 90_000,
    });
    expect(lateness).toMatchObject({ unit: 's', kind: 'histogram' });
    expect(lateness.count).toBeGreaterThanOrEqual(1);
    expect(lateness.value).toBeGreaterThanOrEqual(0);
  });
});

describe('subscription gauges', () => {
  it('reports held events by status, due deliveries and the lag of its consumers', async () => {
    for (const status of ['held', 'waiting', 'released']) {
      const held = await until(
        `held_events ${status}`,
        () => point('relay-subscription', 'relay.subscription.held_events', { 'relay.subscription.event_status': status }),
        seen,
      );
      expect(held).toMatchObject({ unit: '{event}', kind: 'gauge' });
    }
    expect(await until('due_deliveries', () => point('relay-subscription', 'relay.subscription.due_deliveries'), seen)).toMatchObject({
      unit: '{delivery}',
      kind: 'gauge',
    });
    for (const durable of ['subscription-session-events', 'subscription-watch-session-events', 'subscription-watch-question-events']) {
      const lag = await until(
        `consumer lag of ${durable}`,
        () => point('relay-subscription', 'relay.subscription.consumer.lag', { 'relay.bus.consumer': durable }),
        seen,
      );
      expect(lag).toMatchObject({ unit: '{message}', kind: 'gauge' });
      expect(lag.value).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('outbox gauges', () => {
  it("report each service's outbox backlog: rows pending and the oldest one's wait, 0 when it drains", async () => {
    for (const service of ['relay-session', 'relay-question', 'relay-pairing']) {
      const pending = await until(`${service} relay.outbox.pending`, () => point(service, 'relay.outbox.pending'), seen);
      expect(pending).toMatchObject({ unit: '{row}', kind: 'gauge' });
      expect(pending.value).toBeGreaterThanOrEqual(0);
      const age = await until(`${service} relay.outbox.oldest.age`, () => point(service, 'relay.outbox.oldest.age'), seen);
      expect(age).toMatchObject({ unit: 's', kind: 'gauge' });
      // A relay whose NATS is up drains its outbox within moments of each write.
      expect(age.value).toBeLessThan(60);
    }
  });
});
