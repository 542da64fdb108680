// Traces as data: one relay_tool call is one trace across the gateway, gRPC and the session service's database
// work; an outbox event's consumer continues its producer's trace. The services export OTLP to a receiver on
// loopback, given only OTEL_EXPORTER_OTLP_ENDPOINT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startRelay, type Relay } from '../harness/relay.ts';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.ts';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let relay: Relay;
let agent: Client;
const receiver = new OtlpReceiver();

async function eventually<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} arrived; spans seen: ${receiver.spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
  relay = await startRelay({ name: 'traced', otlpEndpoint: receiver.endpoint });
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
    const toolSpan = await eventually(
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'list_sessions'),
      'relay_tool span',
    );
    const grpcServer = await eventually(
      () => receiver.trace(toolSpan.traceId).find((s) => s.service === 'relay-session' && s.kind === SERVER && s.name.endsWith('SessionService/ListSessions')),
      'session service gRPC server span in the same trace',
    );
    const trace = receiver.trace(toolSpan.traceId);
    const grpcClient = trace.find((s) => s.service === 'relay-gateway' && s.kind === CLIENT && s.name.endsWith('SessionService/ListSessions'));
    expect(grpcClient).toBeDefined();
    expect(descends(grpcClient!, toolSpan, trace)).toBe(true);
    expect(grpcServer.parentSpanId).toBe(grpcClient!.spanId);
    const httpServer = trace.find((s) => s.service === 'relay-gateway' && s.kind === SERVER);
    expect(httpServer).toBeDefined();
    expect(descends(toolSpan, httpServer!, trace)).toBe(true);
    const dbWork = await eventually(() => {
      const current = receiver.trace(toolSpan.traceId);
      return current.find((s) => s.service === 'relay-session' && s.kind === CLIENT && s.name.startsWith('pg.query') && descends(s, grpcServer, current));
    }, 'a database query of the session service under its ListSessions span');
    expect(dbWork.traceId).toBe(toolSpan.traceId);
  });
});

describe('an outbox event keeps its trace', () => {
  it('the subscription service consumer span continues the session service producer span', async () => {
    await relay.createExternalSession('Event with a trace');
    const producer = await eventually(
      () => receiver.spans.find((s) => s.service === 'relay-session' && s.kind === PRODUCER && s.name.includes('session_created')),
      'producer span',
    );
    const consumer = await eventually(
      () => receiver.trace(producer.traceId).find((s) => s.service === 'relay-subscription' && s.kind === CONSUMER && s.name.includes('session_created')),
      'consumer span in the producer trace',
    );
    expect(descends(consumer, producer, receiver.trace(producer.traceId))).toBe(true);
  });
});

describe('gateway → question', () => {
  it('an ask is one trace from the MCP call to the question service', async () => {
    await agent.callTool({ name: 'relay_tool', arguments: { action: 'ask', question: 'Ship tonight?', options: ['Yes', 'No'] } });
    const toolSpan = await eventually(
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'ask'),
      'relay_tool ask span',
    );
    const server = await eventually(
      () => receiver.trace(toolSpan.traceId).find((s) => s.service === 'relay-question' && s.kind === SERVER && s.name.includes('QuestionService/')),
      'question service gRPC server span in the same trace',
    );
    expect(descends(server, toolSpan, receiver.trace(toolSpan.traceId))).toBe(true);
  });
});
