// Traces as data: one relay_tool call is one trace across the gateway, gRPC and the session service's database
// work; an outbox event's or command's consumer continues its producer's trace (session → subscription,
// subscription → session, scheduler → session). The services export OTLP to a receiver on loopback, given only
// OTEL_EXPORTER_OTLP_ENDPOINT. The relay clock runs 60× (one relay minute per real second) so a wake-up's
// coalescing window and a schedule's first minute pass quickly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startRelay, type Relay } from '../harness/relay.ts';
import { allowCard, finish, scriptSession } from '../harness/script-turns.ts';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.ts';
import { until } from '../harness/until.ts';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let relay: Relay;
let agent: Client;
const receiver = new OtlpReceiver();

/** What a wait for spans shows when they never come. */
const seen = { timeoutMs: 20_000, detail: () => `spans seen: ${receiver.spans.map((s) => `${s.service}:${s.name}`).join(', ')}` };

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

/** The producer span of `subject` from `service`, and the consumer span of the same message in `consumer`, in one trace. */
async function busEdge(service: string, consumer: string, subject: string): Promise<{ producer: ReceivedSpan; consumed: ReceivedSpan; trace: ReceivedSpan[] }> {
  const consumed = await until(
    `a ${consumer} consumer span of ${subject} in a trace with a ${service} producer span`,
    () =>
      receiver.spans.find(
        (s) =>
          s.service === consumer &&
          s.kind === CONSUMER &&
          s.attributes['relay.bus.subject'] === subject &&
          receiver.trace(s.traceId).some((p) => p.service === service && p.kind === PRODUCER && p.attributes['relay.bus.subject'] === subject),
      ),
    { ...seen, timeoutMs: 90_000 },
  );
  const trace = receiver.trace(consumed.traceId);
  const producer = trace.find((s) => s.service === service && s.kind === PRODUCER && s.attributes['relay.bus.subject'] === subject)!;
  return { producer, consumed, trace };
}

/** True when `span` descends from `ancestor` through parent links inside `trace`. */
function descends(span: ReceivedSpan, ancestor: ReceivedSpan, trace: ReceivedSpan[]): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  for (let current: ReceivedSpan | undefined = span; current; current = byId.get(current.parentSpanId)) {
    if (current.spanId === ancestor.spanId) return true;
  }
  return false;
}

beforeAll(async () => {
  await receiver.start();
  relay = await startRelay({ name: 'traced', otlpEndpoint: receiver.endpoint, env: { RELAY_CLOCK: `${new Date().toISOString()}@60x` } });
  const caller = await relay.createExternalSession('Traced');
  agent = await relay.connectAgent(caller.token);
});

afterAll(async () => {
  await agent?.close();
  await relay?.stop();
  await receiver.stop();
});

describe('one relay_tool call is one trace', () => {
  it('covers the MCP call in the gateway, the gRPC call and the session service database work', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    const toolSpan = await until(
      'relay_tool span',
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'list_sessions'),
      seen,
    );
    const grpcServer = await until(
      'session service gRPC server span in the same trace',
      () => receiver.trace(toolSpan.traceId).find((s) => s.service === 'relay-session' && s.kind === SERVER && s.name.endsWith('SessionService/ListSessions')),
      seen,
    );
    const trace = receiver.trace(toolSpan.traceId);
    const grpcClient = trace.find((s) => s.service === 'relay-gateway' && s.kind === CLIENT && s.name.endsWith('SessionService/ListSessions'));
    expect(grpcClient).toBeDefined();
    expect(descends(grpcClient!, toolSpan, trace)).toBe(true);
    expect(grpcServer.parentSpanId).toBe(grpcClient!.spanId);
    const httpServer = trace.find((s) => s.service === 'relay-gateway' && s.kind === SERVER);
    expect(httpServer).toBeDefined();
    expect(descends(toolSpan, httpServer!, trace)).toBe(true);
    const dbWork = await until(
      'a database query of the session service under its ListSessions span',
      () => {
        const current = receiver.trace(toolSpan.traceId);
        return current.find((s) => s.service === 'relay-session' && s.kind === CLIENT && s.name.startsWith('pg.query') && descends(s, grpcServer, current));
      },
      seen,
    );
    expect(dbWork.traceId).toBe(toolSpan.traceId);
  });

  it('has one span for each layer a read crosses: none for each Fastify hook or handler, none for taking a pooled connection', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'relay_info', relay: 'this' } });
    // Each process exports its spans in the order they end: once the next call's span is in, the first call's are.
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } });
    const toolSpan = await until(
      'relay_tool relay_info span',
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'relay_info'),
      seen,
    );
    await until(
      'the next call’s relay_tool span',
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'list_sessions' && s.startMs > toolSpan.startMs),
      seen,
    );
    await until(
      'the session service query of the read',
      () => receiver.trace(toolSpan.traceId).find((s) => s.service === 'relay-session' && s.name.startsWith('pg.query')),
      seen,
    );
    const names = receiver.trace(toolSpan.traceId).map((s) => `${s.service}:${s.name}`);

    expect(names.filter((name) => name.startsWith('relay-gateway:') && !name.includes('.v1.')).sort()).toEqual([
      'relay-gateway:POST /mcp',
      'relay-gateway:relay_tool relay_info',
      'relay-gateway:request',
    ]);
    expect(names.filter((name) => name.includes('pg-pool'))).toEqual([]);
  });
});

describe('an outbox event keeps its trace', () => {
  it('the subscription service consumer span continues the session service producer span', async () => {
    await relay.createExternalSession('Event with a trace');
    const producer = await until(
      'producer span',
      () => receiver.spans.find((s) => s.service === 'relay-session' && s.kind === PRODUCER && s.name.includes('session_created')),
      seen,
    );
    const consumer = await until(
      'consumer span in the producer trace',
      () => receiver.trace(producer.traceId).find((s) => s.service === 'relay-subscription' && s.kind === CONSUMER && s.name.includes('session_created')),
      seen,
    );
    expect(descends(consumer, producer, receiver.trace(producer.traceId))).toBe(true);
  });
});

describe('gateway → question', () => {
  it('an ask is one trace from the MCP call to the question service', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'ask', question: 'Ship tonight?', options: ['Yes', 'No'] } });
    const toolSpan = await until(
      'relay_tool ask span',
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'ask'),
      seen,
    );
    const server = await until(
      'question service gRPC server span in the same trace',
      () => receiver.trace(toolSpan.traceId).find((s) => s.service === 'relay-question' && s.kind === SERVER && s.name.includes('QuestionService/')),
      seen,
    );
    expect(descends(server, toolSpan, receiver.trace(toolSpan.traceId))).toBe(true);
  });
});

describe('subscription → bus → session', () => {
  it('the session service consuming a wake-up command continues the subscription service trace that published it', async () => {
    const worker = await scriptSession(relay, 'Traced worker', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const watcher = await scriptSession(relay, 'Traced watcher', tool({ action: 'subscribe', sessions: [worker.id] }));
    await allowCard(relay, watcher.id);
    await finish(relay, watcher.id, watcher.messageId);
    // The worker's next turn ends: the subscription service plans a wake-up and publishes deliver_wakeup.
    expect((await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply done again' })).status).toBe(201);

    const { producer, consumed, trace } = await busEdge('relay-subscription', 'relay-session', 'relay.subscription.v1.cmd.deliver_wakeup');
    expect(descends(consumed, producer, trace)).toBe(true);
    // The consumer's work (the watcher's new turn) is database work in the same trace.
    await until(
      'session service database work under the wake-up consumer span',
      () => {
        const current = receiver.trace(producer.traceId);
        return current.find((s) => s.service === 'relay-session' && s.name.startsWith('pg.query') && descends(s, consumed, current));
      },
      seen,
    );
  });
});

describe('scheduler → bus → session', () => {
  it('the session service queuing a scheduled prompt continues the scheduler trace that fired it', async () => {
    await scriptSession(relay, 'Traced ticker', tool({ action: 'schedule', title: 'Tick', text: 'reply tick', every_minutes: 1 }));
    const { producer, consumed, trace } = await busEdge('relay-scheduler', 'relay-session', 'relay.scheduler.v1.cmd.queue_prompt');
    expect(descends(consumed, producer, trace)).toBe(true);
    await until(
      'session service database work under the scheduled-prompt consumer span',
      () => {
        const current = receiver.trace(producer.traceId);
        return current.find((s) => s.service === 'relay-session' && s.name.startsWith('pg.query') && descends(s, consumed, current));
      },
      seen,
    );
  });
});
