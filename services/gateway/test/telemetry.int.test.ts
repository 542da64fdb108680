import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Attr, shutdownTelemetry } from '@relay/telemetry';
import { startTelemetry } from '@relay/telemetry/start';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from './start-gateway.ts';

const exporter = new InMemorySpanExporter();
let gateway: TestGateway;
let client: Client;

beforeAll(async () => {
  startTelemetry({ serviceName: 'gateway-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // Loaded after the SDK starts, so Fastify, http and gRPC are instrumented.
  const { startGateway } = await import('./start-gateway.ts');
  gateway = await startGateway('desk');
  const { token } = gateway.owners.addAgentSession('u1');
  client = new Client({ name: 'gateway-test', version: '0.0.1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});

afterAll(async () => {
  await client.close();
  await gateway.close();
  await shutdownTelemetry();
});

function toolSpans(action: string) {
  return exporter.getFinishedSpans().filter((span) => span.attributes[Attr.TOOL_ACTION] === action);
}

it('records each relay_tool call as one span with its action, and its code when refused', async () => {
  await client.callTool({ name: 'relay_tool', arguments: { action: 'list_relays' } });
  await client.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this', scope: 'recent' } });

  await expect.poll(() => toolSpans('list_sessions').length).toBe(1);
  const [listRelays] = toolSpans('list_relays');
  expect(listRelays?.name).toBe('relay_tool list_relays');
  expect(listRelays?.attributes[Attr.TOOL_CODE]).toBeUndefined();

  const [listSessions] = toolSpans('list_sessions');
  expect(listSessions?.attributes[Attr.TOOL_CODE]).toBe('REMOTE_RELAY_INVALID_INPUT');

  // The gRPC calls the action made are children of its span, in the same trace.
  const children = exporter
    .getFinishedSpans()
    .filter((span) => span.parentSpanContext?.spanId === listRelays?.spanContext().spanId && span.name.includes('grpc'));
  expect(children.map((span) => span.spanContext().traceId)).toEqual(children.map(() => listRelays?.spanContext().traceId));
  expect(children.length).toBeGreaterThanOrEqual(2);
});

it.each([
  ['a read answered at once', 'relay_info', { relay: 'this' }],
  ["a call the SDK's server answers", 'list_relays', {}],
])("continues the caller's trace from the call's _meta.traceparent: %s", async (_label, action, args) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';
  const before = toolSpans(action).length;
  await client.callTool({ name: 'relay_tool', arguments: { action, ...args }, _meta: { traceparent: `00-${traceId}-${callerSpanId}-01` } });

  await expect.poll(() => toolSpans(action).length).toBe(before + 1);
  const span = toolSpans(action).at(-1);
  expect(span?.spanContext().traceId).toBe(traceId);
  expect(span?.parentSpanContext?.spanId).toBe(callerSpanId);
});
