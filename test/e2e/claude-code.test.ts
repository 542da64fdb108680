// Issue 4 end to end for the `claude-api` provider with no credentials and no network: the real Claude Agent SDK
// starts the real Claude Code binary it ships, pointed (ANTHROPIC_BASE_URL) at an Anthropic Messages API the test
// runs on loopback, speaking its streamed wire format. The fake model calls mcp__relay__relay_tool; Claude Code
// reaches the gateway through the HTTP MCP server `relay` with the session's token, the result flows back to the
// model, and its answer is the turn's reply. A second turn resumes the same Claude Code session. A shell command
// the model asks for waits on an ask_user card (Allow runs it, Deny refuses it). An event row for a watcher on
// Claude that arrives mid-turn is steered into that turn. The turns' tokens show in usage.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeEnv, sse, startFakeAnthropicApi, type FakeAnthropicApi } from '../harness/fake-anthropic-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish } from '../harness/script-turns.ts';
import { skipCoalescingWindow } from '../harness/coalescing.ts';

let relay: Relay;
let api: FakeAnthropicApi;
let configDir: string;
/** The streamed /v1/messages requests the fake model answered (Claude Code's side calls are left out). */
const requests: { apiKey: string | undefined; body: any }[] = [];

/** The last user message's tool_result for our tool call, if any. */
function toolResult(body: any): string | undefined {
  const last = body.messages.at(-1);
  const block = Array.isArray(last?.content)
    ? last.content.find((part: any) => part.type === 'tool_result' && part.tool_use_id === 'toolu_relay_1')
    : undefined;
  if (block === undefined) return undefined;
  return typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text ?? '').join('');
}

/** The fake model's reply to a prompt that asks for a file: run a shell command (Claude Code asks the user first). */
function answerWithBash(body: any, start: string): string[] {
  const last = body.messages.at(-1);
  const result = Array.isArray(last?.content)
    ? last.content.find((part: any) => part.type === 'tool_result' && part.tool_use_id === 'toolu_bash_1')
    : undefined;
  if (result === undefined) {
    return [
      start,
      sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_bash_1', name: 'Bash', input: {} } }),
      sse('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command: 'echo made > made-by-claude.txt', description: 'Write a file' }) },
      }),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }),
      sse('message_stop', {}),
    ];
  }
  return [
    start,
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: result.is_error ? 'The command was refused.' : 'The file is written.' } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }),
    sse('message_stop', {}),
  ];
}

/** Held open until the test releases it: the watcher's turn is mid-turn meanwhile. */
let holdWatcher: { reached: () => void; release: Promise<void> } | undefined;

/** The watcher: subscribes to the session its prompt names, then waits (held), then reads what was steered in. */
async function answerAsWatcher(body: any, start: string): Promise<string[]> {
  const text = (chunks: string) => [
    start,
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: chunks } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }),
    sse('message_stop', {}),
  ];
  const conversation = JSON.stringify(body.messages);
  if (conversation.includes('[relay event')) return text('Saw the event: the helper finished.');
  if (!conversation.includes('toolu_sub_1')) {
    const helper = /Watch session ([\w-]+)/.exec(JSON.stringify(body.messages[0]))![1]!;
    return [
      start,
      sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_sub_1', name: 'mcp__relay__relay_tool', input: {} } }),
      sse('content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify({ action: 'subscribe', relay: 'this', sessions: [helper], events: ['turn_end'] }) },
      }),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }),
      sse('message_stop', {}),
    ];
  }
  holdWatcher?.reached();
  await holdWatcher?.release;
  return text('Waiting for the helper.');
}

/** The fake model: asks for list_sessions through relay_tool, then answers with what the tool said. */
function answer(body: any): string[] | Promise<string[]> {
  const start = sse('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 200, output_tokens: 1 },
    },
  });
  if (JSON.stringify(body.messages[0]).includes('Make the file')) return answerWithBash(body, start);
  if (JSON.stringify(body.messages[0]).includes('Watch session')) return answerAsWatcher(body, start);
  const result = toolResult(body);
  if (result === undefined && !JSON.stringify(body.messages).includes('toolu_relay_1')) {
    return [
      start,
      sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_relay_1', name: 'mcp__relay__relay_tool', input: {} } }),
      sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"action":"list_sessions",' } }),
      sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"relay":"this"}' } }),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }),
      sse('message_stop', {}),
    ];
  }
  const summary = result === undefined ? 'nothing new' : (JSON.parse(result).summary as string);
  return [
    start,
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The relay says: ' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: summary } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }),
    sse('message_stop', {}),
  ];
}

beforeAll(async () => {
  configDir = await mkdtemp(join(tmpdir(), 'relay-claude-config-'));
  api = await startFakeAnthropicApi({
    answer,
    onTurnRequest: (body, request) => requests.push({ apiKey: request.headers['x-api-key'] as string | undefined, body }),
  });
  relay = await startRelay({
    name: 'desk',
    // A virtual clock at the real rate, so the steer test can skip the 30-second window (relay.jumpTo).
    env: { ...claudeCodeEnv(api, configDir), RELAY_CLAUDE_API_MONTHLY_CAP_USD: '100', RELAY_CLOCK: new Date().toISOString() },
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  if (configDir) await rm(configDir, { recursive: true, force: true });
});

describe('the claude-api provider with the real Claude Code', () => {
  let sessionId: string;
  let firstReply: string;

  it("runs a turn whose mcp__relay__relay_tool call reaches the gateway with the session's token, and answers with its result", async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'claude-api',
      model: 'claude-sonnet-5-5',
      cwd: '/tmp',
      title: 'Claude',
      text: 'Which sessions are there?',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    sessionId = created.body.session.id;
    const turn = await finish(relay, sessionId, created.body.message_id);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    // list_sessions ran as the session's user, through the gateway: it sees this one session.
    expect(turn.reply).toMatchObject({ text: 'The relay says: list_sessions → desk: 1 session', model: 'claude-sonnet-5-5' });
    firstReply = turn.reply.text;

    const [first, second] = requests;
    expect(first!.apiKey).toBe('sk-ant-api-test-key');
    expect(first!.body.model).toBe('claude-sonnet-5-5');
    expect(JSON.stringify(first!.body.messages)).toContain('Which sessions are there?');
    expect(first!.body.tools.find((tool: any) => tool.name === 'mcp__relay__relay_tool').input_schema).toMatchObject({
      type: 'object',
      properties: { action: expect.any(Object) },
    });
    expect(toolResult(second!.body)).toContain('"ok":true');
  });

  it('resumes the same Claude Code session on the next message', async () => {
    const before = requests.length;
    const sent = await relay.api('POST', `/api/v1/sessions/${sessionId}/messages`, { text: 'And now?' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const again = await finish(relay, sessionId, sent.body.message_id);
    expect(again.status, JSON.stringify(again)).toBe('done');
    // The conversation so far came from Claude Code's own transcript: the first turn's tool call is in it.
    const conversation = JSON.stringify(requests[before]!.body.messages);
    expect(conversation).toContain('toolu_relay_1');
    expect(conversation).toContain('Which sessions are there?');
    expect(conversation).toContain(firstReply);
    expect(conversation).toContain('And now?');
  });

  it('asks the user on a card before a tool other than relay_tool runs: Allow runs it, Deny refuses it', async () => {
    const allowed = await mkdtemp(join(tmpdir(), 'relay-claude-allow-'));
    const denied = await mkdtemp(join(tmpdir(), 'relay-claude-deny-'));
    try {
      for (const [folder, decision, reply] of [
        [allowed, 'allow', 'The file is written.'],
        [denied, 'deny', 'The command was refused.'],
      ] as const) {
        const created = await relay.api('POST', '/api/v1/sessions', {
          provider: 'claude-api',
          model: 'claude-sonnet-5-5',
          cwd: folder,
          title: decision,
          text: 'Make the file, please.',
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const id = created.body.session.id;
        let card: any;
        for (let look = 0; card === undefined && look < 600; look++) {
          [card] = (await relay.api('GET', `/api/v1/cards?session=${id}&pending=1`)).body.cards;
          if (card === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(card).toMatchObject({ kind: 'approval', options: [] });
        expect([card.title, ...card.lines].join(' ')).toMatch(/Bash|echo/);
        // The card is raised before the turn's status says so: look again until it does (or 30 s have gone).
        let waiting: any;
        for (let look = 0; look < 300; look++) {
          waiting = await relay.api('GET', `/api/v1/sessions/${id}/wait?message_id=${created.body.message_id}&wait_seconds=0`);
          if (waiting.body.status === 'waiting_for_answer') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(waiting.body.status).toBe('waiting_for_answer');
        const decided = await relay.api('POST', `/api/v1/cards/${card.id}`, { decision });
        expect(decided.status, JSON.stringify(decided.body)).toBe(200);
        const turn = await finish(relay, id, created.body.message_id);
        expect(turn).toMatchObject({ status: 'done', reply: { text: reply } });
      }
      expect(await readFile(join(allowed, 'made-by-claude.txt'), 'utf8')).toBe('made\n');
      await expect(readFile(join(denied, 'made-by-claude.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    } finally {
      await Promise.all([rm(allowed, { recursive: true, force: true }), rm(denied, { recursive: true, force: true })]);
    }
  });

  it('steers an event row that arrives mid-turn into the running Claude turn, as it is, and queues nothing', async () => {
    const helper = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Helper', text: 'reply ready' });
    await finish(relay, helper.body.session.id, helper.body.message_id);
    let reached!: () => void;
    const atHold = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    holdWatcher = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const database = new pg.Client({ connectionString: relay.databaseUrls.session });
    await database.connect();
    try {
      const watcher = await relay.api('POST', '/api/v1/sessions', {
        provider: 'claude-api',
        model: 'claude-sonnet-5-5',
        cwd: '/tmp',
        title: 'Watcher',
        text: `Watch session ${helper.body.session.id}.`,
      });
      expect(watcher.status, JSON.stringify(watcher.body)).toBe(201);
      const id = watcher.body.session.id;
      // The first watch asks the user.
      let card: any;
      for (let look = 0; card === undefined && look < 600; look++) {
        [card] = (await relay.api('GET', `/api/v1/cards?session=${id}&pending=1`)).body.cards;
        if (card === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
      await atHold;

      // The helper's turn ends while the watcher's turn runs: its turn_end goes out after the 30 s window, skipped.
      const since = relay.now();
      const sent = await relay.api('POST', `/api/v1/sessions/${helper.body.session.id}/messages`, { text: 'reply done' });
      await finish(relay, helper.body.session.id, sent.body.message_id);
      await skipCoalescingWindow(relay, id, since);
      for (let look = 0; look < 900; look++) {
        const { rows } = await database.query(`SELECT count(*)::int AS n FROM processed_messages WHERE consumer = 'session-wakeups'`);
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      release();

      const turn = await finish(relay, id, watcher.body.message_id);
      expect(turn).toMatchObject({ status: 'done', reply: { text: 'Saw the event: the helper finished.' } });
      // Steered, not queued: the watcher has its one message and no event message or second turn.
      const { rows: messages } = await database.query(`SELECT role FROM messages WHERE session_id = $1`, [id]);
      expect(messages.map((row: { role: string }) => row.role).sort()).toEqual(['assistant', 'user']);
      const { rows: turns } = await database.query(`SELECT status FROM turns WHERE session_id = $1`, [id]);
      expect(turns).toEqual([{ status: 'done' }]);
      // The model read the row as it is: a user message starting with the relay's event header, no steer note.
      const steered = requests
        .flatMap((request) => request.body.messages)
        .flatMap((message: any) =>
          message.role === 'user' ? (typeof message.content === 'string' ? [message.content] : message.content.map((part: any) => part.text ?? '')) : [],
        )
        .find((content: string) => content.includes('[relay event'));
      expect(steered).toMatch(/^\[relay event[^\]]*\]\n\[relay event\] session "Helper" \(.{4}…\): turn_end \(done\) "done"$/);
    } finally {
      release();
      holdWatcher = undefined;
      await database.end();
    }
  });

  it('usage meters the tokens and cost Claude Code reported for those turns against the cap; no secrets', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Usage', text: 'relay_tool {"action":"usage","relay":"this"}' });
    const usage = JSON.parse((await finish(relay, created.body.session.id, created.body.message_id)).reply.text);
    const claudeApi = usage.providers.find((provider: any) => provider.provider === 'claude-api');
    expect(claudeApi.status).toBe('ok');
    expect(claudeApi.meters.find((meter: any) => meter.name === 'tokens').used).toBeGreaterThan(0);
    expect(claudeApi.meters.find((meter: any) => meter.name === 'cost_usd')).toMatchObject({ allowance: 100 });
    expect(JSON.stringify(usage)).not.toContain('sk-ant-api-test-key');
  });
});
