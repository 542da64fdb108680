// Traces across relays: one relay_tool call that relay-a forwards to relay-b is one trace, from relay-a's MCP
// request through its gateway and pairing service, over HTTP (traceparent) to relay-b's gateway and session
// service, and back. Each relay exports OTLP to its own receiver on loopback; the trace id ties them together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.ts';
import { until } from '../harness/until.ts';

const SERVER = 2;
const CLIENT = 3;

let a: Relay;
let b: Relay;
const receiverA = new OtlpReceiver();
const receiverB = new OtlpReceiver();

/** How long a wait for spans looks. */
const seen = { timeoutMs: 30_000 };

/** True when `span` descends from `ancestor` through parent links inside `trace`. */
function descends(span: ReceivedSpan, ancestor: ReceivedSpan, trace: ReceivedSpan[]): boolean {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  for (let current: ReceivedSpan | undefined = span; current; current = byId.get(current.parentSpanId)) {
    if (current.spanId === ancestor.spanId) return true;
  }
  return false;
}

beforeAll(async () => {
  await Promise.all([receiverA.start(), receiverB.start()]);
  a = await startRelay({ name: 'traced-a', otlpEndpoint: receiverA.endpoint, readyTimeoutMs: 240_000 });
  b = await startRelay({ name: 'traced-b', otlpEndpoint: receiverB.endpoint, readyTimeoutMs: 240_000 });
  const code = await b.api('POST', '/api/v1/pairing-codes');
  expect((await a.api('POST', '/api/v1/pairings', { url: b.gatewayUrl, code: code.body.code })).status).toBe(201);
}, 600_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([receiverA.stop(), receiverB.stop()]);
});

describe('a call to a paired relay is one trace', () => {
  it("covers relay-a's MCP request, gateway and pairing service, then relay-b's gateway and session service", async () => {
    const text = ['# traced-b', `relay_tool ${JSON.stringify({ action: 'list_sessions', relay: 'traced-b' })}`].join('\n');
    const created = await a.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Tracer', text });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const toolSpan = await until(
      "relay-a's relay_tool span",
      () => receiverA.spans.find((s) => s.service === 'relay-gateway' && s.name === 'relay_tool list_sessions'),
      seen,
    );
    const traceId = toolSpan.traceId;
    // relay-a: the MCP request's server span holds the tool span; the gateway calls its pairing service over gRPC.
    const onA = () => receiverA.trace(traceId);
    const mcpRequest = onA().find((s) => s.service === 'relay-gateway' && s.kind === SERVER);
    expect(mcpRequest).toBeDefined();
    expect(descends(toolSpan, mcpRequest!, onA())).toBe(true);
    const forwardServer = await until(
      "relay-a's pairing service ForwardToolCall span in the trace",
      () => onA().find((s) => s.service === 'relay-pairing' && s.kind === SERVER && s.name.endsWith('PairingService/ForwardToolCall')),
      seen,
    );
    const forwardClient = onA().find((s) => s.service === 'relay-gateway' && s.kind === CLIENT && s.name.endsWith('PairingService/ForwardToolCall'));
    expect(forwardClient).toBeDefined();
    expect(descends(forwardClient!, toolSpan, onA())).toBe(true);
    expect(forwardServer.parentSpanId).toBe(forwardClient!.spanId);
    const httpOut = await until(
      "relay-a's HTTP call to relay-b",
      () => onA().find((s) => s.service === 'relay-pairing' && s.kind === CLIENT && s.name === 'POST /relay/v1/tool'),
      seen,
    );
    expect(descends(httpOut, forwardServer, onA())).toBe(true);

    // relay-b: its gateway continues the trace from relay-a's HTTP call, and calls its session service.
    const onB = () => receiverB.trace(traceId);
    const httpIn = await until(
      "relay-b's gateway server span under relay-a's HTTP call",
      () => onB().find((s) => s.service === 'relay-gateway' && s.kind === SERVER && s.parentSpanId === httpOut.spanId),
      seen,
    );
    const remoteTool = await until(
      "relay-b's span for the forwarded call",
      () => onB().find((s) => s.service === 'relay-gateway' && s.name === 'relay_tool list_sessions from paired relay'),
      seen,
    );
    expect(descends(remoteTool, httpIn, onB())).toBe(true);
    const sessionServer = await until(
      "relay-b's session service ListSessions span in the same trace",
      () => onB().find((s) => s.service === 'relay-session' && s.kind === SERVER && s.name.endsWith('SessionService/ListSessions')),
      seen,
    );
    expect(descends(sessionServer, remoteTool, onB())).toBe(true);
  });
});
