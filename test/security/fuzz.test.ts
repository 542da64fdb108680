/**
 * The edges refuse abuse, proven by fuzzing the real gateway of a real relay: 800 generated malformed
 * relay_tool calls through an MCP client (the SDK's) and 1,200 malformed HTTP requests to /mcp, /api/v1 and
 * /relay/v1 (fuzz-inputs.ts), 2,000 in all, a few at a time. Not one answer may be a fault (5xx, REMOTE_RELAY_INTERNAL,
 * JSON-RPC's internal error), none may go unanswered (a call still open after 30 s has stalled the edge: it is
 * abandoned and fails the run), and every service must still be up afterwards. How fast the answers come is a
 * figure of security-fuzz.bench.ts, not an assertion here. The relay's user denies every card a
 * call raises as soon as it shows (a call that needs the user's Allow waits for a person, not for the edge).
 * A failure prints the fast-check seed and the shrunk input that broke it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATEFUL, startRelay, type Relay } from '../harness/relay.ts';
import { FUZZ_RELAY_ENV, STALLED_MS, sendHttpCase, sendToolCall, startCardDenier, type CardDenier, type FuzzTokens, type Outcome } from './fuzz-client.ts';
import { httpCase, toolCall, vocabularyOf, type HttpCase, type Vocabulary } from './fuzz-inputs.ts';

// 2,000 in all. A relay_tool call costs the relay's services about 60 ms of CPU (the gateway and the session
// service most), an HTTP request about 10 ms: on 2 cores this part takes about half a minute, the relay's start about 20 s.
const TOOL_CALLS = 800;
const HTTP_REQUESTS = 1_200;
/** Calls in flight at once, each lane's one: the relay's services and this client share the machine's cores. */
const PARALLEL = 4;

let relay: Relay;
let agent: Client;
let tokens: FuzzTokens;
let vocabulary: Vocabulary;
let denier: CardDenier;
/** Answers by kind ("tool REMOTE_RELAY_INVALID_INPUT", "http 400", …), over both properties. */
const seen = new Map<string, number>();

/** What one generated input got, for the assertion's message: the answer and (the start of) the input. */
function show(outcome: Outcome, input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  return `${outcome.late ? `no answer within ${STALLED_MS} ms` : outcome.kind} for ${text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text}`;
}

/**
 * Sends `count` generated inputs in PARALLEL lanes, each a property of its own (its seed and shrunk input printed when
 * it fails) that sends one input after another: an answer slow to come holds up its own lane, not a batch of the
 * others. Fails on the first stalled or faulty answer, once every lane has stopped; `sent` counts the answers.
 */
async function sendInLanes<T>(inputs: fc.Arbitrary<T>, send: (input: T) => Promise<Outcome>, count: number, sent: { count: number }): Promise<void> {
  const lanes = await Promise.allSettled(
    Array.from({ length: PARALLEL }, () =>
      fc.assert(
        fc.asyncProperty(inputs, async (input) => {
          const outcome = await send(input);
          sent.count += 1;
          seen.set(outcome.kind, (seen.get(outcome.kind) ?? 0) + 1);
          expect(outcome.late, show(outcome, input)).toBe(false);
          expect(outcome.fault, show(outcome, input)).toBe(false);
        }),
        { numRuns: count / PARALLEL },
      ),
    ),
  );
  const failed = lanes.find((lane) => lane.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

beforeAll(async () => {
  relay = await startRelay({ name: 'fuzz', env: FUZZ_RELAY_ENV });
  const session = await relay.createExternalSession('Fuzz desk');
  tokens = { user: relay.userToken, session: session.token };
  agent = await relay.connectAgent(session.token);
  const { tools } = await agent.listTools();
  vocabulary = vocabularyOf(tools.find((tool) => tool.name === 'relay_tool')!);
  denier = startCardDenier(relay.gatewayUrl, relay.userToken);
});

afterAll(async () => {
  await denier?.stop();
  await agent?.close();
  await relay?.stop();
});

describe('fuzzing the gateway', () => {
  it(`answers ${TOOL_CALLS} malformed relay_tool calls without a fault, each answered`, async () => {
    expect(vocabulary.actions.length).toBeGreaterThan(20);
    const sent = { count: 0 };
    await sendInLanes(toolCall(vocabulary), (call) => sendToolCall(agent, call, STALLED_MS), TOOL_CALLS, sent);
    expect(sent.count).toBe(TOOL_CALLS);
    // The calls reached the checks they were meant for, not only the first one.
    expect(seen.get('tool REMOTE_RELAY_INVALID_INPUT') ?? 0).toBeGreaterThan(TOOL_CALLS / 2);
    expect(seen.get('tool ok') ?? 0).toBeGreaterThan(0);
  }, 300_000);

  it(`answers ${HTTP_REQUESTS} malformed HTTP requests to /mcp, /api/v1 and /relay/v1 without a 5xx, each answered`, async () => {
    const sent = { count: 0 };
    await sendInLanes(httpCase(), (request) => sendHttpCase(relay.gatewayUrl, tokens, request, STALLED_MS), HTTP_REQUESTS, sent);
    expect(sent.count).toBe(HTTP_REQUESTS);
    for (const status of [400, 401, 404]) expect(seen.get(`http ${status}`) ?? 0, `answers ${status}`).toBeGreaterThan(0);
  }, 300_000);

  // Inputs the fuzzing found faults with once (fixed since), sent every time.
  it.each<[string, HttpCase, string, string]>([
    [
      'an empty session id in the path',
      { method: 'PATCH', path: '/api/v1/sessions/', auth: 'user', contentType: 'application/json', body: '{"title":"x"}' },
      'http 400',
      'REMOTE_RELAY_INVALID_INPUT',
    ],
    [
      'an empty card id in the path',
      { method: 'POST', path: '/api/v1/cards/', auth: 'user', contentType: 'application/json', body: '{"decision":"deny"}' },
      'http 400',
      'REMOTE_RELAY_INVALID_INPUT',
    ],
    [
      'a form body to /mcp',
      { method: 'POST', path: '/mcp', auth: 'session', contentType: 'application/x-www-form-urlencoded', body: 'a=1' },
      'http 415',
      '"code":-32600',
    ],
    [
      'an empty JSON body to /mcp',
      { method: 'POST', path: '/mcp', auth: 'session', contentType: 'application/json', body: undefined },
      'http 400',
      '"code":-32600',
    ],
    [
      'a tools/call naming no tool, in a batch',
      { method: 'POST', path: '/mcp', auth: 'session', contentType: 'application/json', body: '[{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{}}]' },
      'http 400',
      '"code":-32602',
    ],
    [
      'a tools/call naming no tool',
      { method: 'POST', path: '/mcp', auth: 'session', contentType: 'application/json', body: '{"jsonrpc":"2.0","id":0,"method":"tools/call"}' },
      'http 400',
      '"code":-32602',
    ],
    [
      'an initialize without its params',
      {
        method: 'POST',
        path: '/mcp',
        auth: 'session',
        contentType: 'application/json',
        body: '{"jsonrpc":"2.0","id":-26,"method":"initialize","params":{"name":"relay_tool","arguments":"x"}}',
      },
      'http 400',
      'params.protocolVersion',
    ],
    [
      'a tools/list whose params are a string',
      { method: 'POST', path: '/mcp', auth: 'session', contentType: 'application/json', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}' },
      'http 400',
      '"code":-32602',
    ],
  ])('refuses %s as the caller’s mistake', async (_label, request, kind, says) => {
    const outcome = await sendHttpCase(relay.gatewayUrl, tokens, request, STALLED_MS);
    expect([outcome.kind, outcome.fault, outcome.late]).toEqual([kind, false, false]);
    expect(outcome.text).toContain(says);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an argument named "constructor"', { action: 'send', relay: 'this', constructor: 'x', wait_seconds: 0 }],
    ['an argument named "toString"', { action: 'usage', relay: 'this', toString: true }],
  ])('refuses a relay_tool call with %s as the caller’s mistake, or ignores it', async (_label, input) => {
    const outcome = await sendToolCall(agent, input, STALLED_MS);
    expect([outcome.fault, outcome.late], outcome.kind).toEqual([false, false]);
  });

  it('leaves every service up, and the agent and its user can still work', async () => {
    for (const service of [...STATEFUL, 'gateway'] as const) await relay.waitReady(service);
    expect((await sendToolCall(agent, { action: 'list_sessions', relay: 'this' }, STALLED_MS)).kind).toBe('tool ok');
    expect((await relay.api('GET', '/api/v1/sessions')).status).toBe(200);
    expect(denier.failures()).toEqual([]);
  });
});
