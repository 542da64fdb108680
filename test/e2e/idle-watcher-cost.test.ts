// Issue 45, item 5: a watcher costs no model tokens while nothing happens. The watcher is a session on the fake
// OpenAI-compatible endpoint (priced, so its turns cost money in the ledger) whose model subscribes to a worker with a
// 60-minute digest. Twelve hours of relay time pass with nothing happening: the endpoint hears nothing, the watcher
// has no turn, and its tree's usage stays what the subscribing turn spent. Then the worker's turn ends: its event is
// held to the digest's due time, and one wake-up turn (one answer) is all the watcher spends for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { decideCard, finish, scriptSession } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let api: FakeOpenAiApi;

const HOUR_MS = 3_600_000;

/** The watcher's model: asked to watch a session, it subscribes with a digest; anything else it acknowledges. */
function answer(body: any): string[] {
  const last = body.messages.at(-1);
  const watch = typeof last.content === 'string' ? /^watch (\S+)$/.exec(last.content) : null;
  if (watch !== null) {
    const args = JSON.stringify({ action: 'subscribe', sessions: [watch[1]], events: ['turn_end'], digest_minutes: 60 });
    return [
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'relay_tool', arguments: args } }],
      }),
      chunk({}, 'tool_calls'),
      usageChunk(100, 10),
      DONE,
    ];
  }
  return [chunk({ role: 'assistant', content: last.role === 'tool' ? 'watching' : 'noted' }), chunk({}, 'stop'), usageChunk(100, 10), DONE];
}

/** The tree usage of a session, as the person reads it. */
async function spent(sessionId: string): Promise<{ turns: number; costUsd: number }> {
  const { body } = await relay.api('GET', `/api/v1/sessions/${sessionId}/tree-usage`);
  return { turns: body.totals.turns, costUsd: body.totals.costUsd };
}

/** The watcher's messages by role. */
async function messagesOf(sessionId: string): Promise<string[]> {
  const { body } = await relay.api('GET', `/api/v1/sessions/${sessionId}?last=50`);
  return body.messages.map((message: { role: string }) => message.role);
}

beforeAll(async () => {
  api = await startFakeOpenAiApi({ answer, models: ['fake-1'] });
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_CLOCK: '2026-12-07T08:00:00Z',
      RELAY_OPENAI_BASE_URL: api.url,
      RELAY_OPENAI_API_KEY: 'sk-test-key',
      RELAY_OPENAI_PRICES: JSON.stringify({ 'fake-1': { inputUsdPerMTok: 1000, outputUsdPerMTok: 1000 } }),
    },
  });
  // A skip passes the default 60-minute turn limit at once: no turn here may be cut by it.
  expect((await relay.api('PATCH', '/api/v1/settings', { max_turn_minutes: 1440 })).status).toBe(200);
}, 300_000);

afterAll(async () => {
  await relay?.stop();
  await api?.close();
});

describe('a watcher whose wake-ups are digests', () => {
  it('costs no model tokens while nothing happens, and one wake-up turn when something does', { timeout: 180_000 }, async () => {
    const worker = await scriptSession(relay, 'Worker', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'openai', model: 'fake-1', title: 'Watcher', text: `watch ${worker.id}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const watcher = created.body.session.id as string;
    await decideCard(relay, watcher, 'allow');
    expect((await finish(relay, watcher, created.body.message_id)).reply.text).toBe('watching');
    // The subscribing turn: two answers, 220 tokens at US$1,000 per million.
    expect(await spent(watcher)).toEqual({ turns: 1, costUsd: 0.22 });
    const heard = api.requests.length;
    const roles = await messagesOf(watcher);

    // Twelve hours with nothing happening, an hour at a time (each skip runs the relay's timers due by then).
    for (let hour = 1; hour <= 12; hour++) await relay.jumpTo(new Date(Date.parse('2026-12-07T08:00:00Z') + hour * HOUR_MS));
    await relay.settled();
    expect(api.requests.length).toBe(heard);
    expect(await messagesOf(watcher)).toEqual(roles);
    expect(await spent(watcher)).toEqual({ turns: 1, costUsd: 0.22 });

    // Something happens: the worker's turn ends. Its event is held to the digest's due time, then wakes the watcher once.
    const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply Built.' });
    await finish(relay, worker.id, sent.body.message_id);
    await relay.settled();
    expect(api.requests.length).toBe(heard);
    await relay.jumpTo(new Date(relay.now().getTime() + HOUR_MS + 60_000));
    await until('the watcher to answer its wake-up', async () => ((await messagesOf(watcher)).length === roles.length + 2 ? true : undefined));
    expect((await messagesOf(watcher)).slice(roles.length)).toEqual(['event', 'assistant']);
    expect(api.requests.length).toBe(heard + 1);
    expect(await spent(watcher)).toEqual({ turns: 2, costUsd: 0.33 });
  });
});
