// Issue 4 end to end for Claude Code's background shells, with no credentials and no network: the real Claude Agent
// SDK and the Claude Code binary it ships, pointed (ANTHROPIC_BASE_URL) at an Anthropic Messages API the test runs on
// loopback. The fake model asks for a Bash with run_in_background; the user allows it on the card; the relay runs it
// as its own background task (Claude Code's process ends with the turn) and Claude Code hands the model the relay's
// answer, whose read_task_output call the model makes as it is given. The command keeps running after the turn, in
// the session's folder, and ends well once the test lets it; read_session shows it as the session's task. A sub-agent
// (Agent) the fake model starts is the session's local_agent task while it runs, and ends with Claude Code's report.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeEnv, sse, startFakeAnthropicApi, type FakeAnthropicApi } from '../harness/fake-anthropic-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish, pendingCard, relayToolResult } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let api: FakeAnthropicApi;
let configDir: string;
let folder: string;
/** The streamed /v1/messages requests of the turn (Claude Code's side calls are left out). */
const requests: any[] = [];

/** The text of the last user message's tool_result for `toolUseId`, if any. */
function toolResult(body: any, toolUseId: string): { text: string; isError: boolean } | undefined {
  const last = body.messages.at(-1);
  const block = Array.isArray(last?.content) ? last.content.find((part: any) => part.type === 'tool_result' && part.tool_use_id === toolUseId) : undefined;
  if (block === undefined) return undefined;
  return {
    text: typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text ?? '').join(''),
    isError: block.is_error === true,
  };
}

function toolUse(start: string, id: string, name: string, input: unknown): string[] {
  return [
    start,
    sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id, name, input: {} } }),
    sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }),
    sse('message_stop', {}),
  ];
}

function text(start: string, reply: string): string[] {
  return [
    start,
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }),
    sse('message_stop', {}),
  ];
}

type Hold = { reached: () => void; release: Promise<void> };
/** Holds the sub-agent's answer until the test releases it: the sub-agent is running meanwhile. */
let holdSubagent: Hold | undefined;
/** Holds the main conversation's answer once the sub-agent was started: the turn is running meanwhile. */
let holdMain: Hold | undefined;

function hold(): { hold: Hold; atHold: Promise<void>; release: () => void } {
  let reached!: () => void;
  let release!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  return { hold: { reached, release: new Promise<void>((resolve) => (release = resolve)) }, atHold, release };
}

/** The fake model of the sub-agent test: hands a check to a sub-agent (Agent), which answers once released. */
async function answerWithSubagent(body: any, start: string): Promise<string[]> {
  if (JSON.stringify(body.messages[0]).includes('SUBAGENT:')) {
    holdSubagent?.reached();
    await holdSubagent?.release;
    return text(start, 'No XSS found.');
  }
  if (toolResult(body, 'toolu_agent_1') !== undefined) {
    holdMain?.reached();
    await holdMain?.release;
    return text(start, 'The helper found nothing.');
  }
  return toolUse(start, 'toolu_agent_1', 'Agent', {
    description: 'Check web/ for XSS',
    prompt: 'SUBAGENT: look at web/ for XSS and answer in one line.',
    subagent_type: 'general-purpose',
  });
}

/**
 * The fake model: runs the suite in the background; given the relay's answer, makes the read_task_output call it
 * names, word for word; then replies with that call's summary.
 */
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
  if (JSON.stringify(body.messages).includes('Check web/ with a helper') || JSON.stringify(body.messages[0]).includes('SUBAGENT:'))
    return answerWithSubagent(body, start);
  const read = toolResult(body, 'toolu_read_1');
  if (read !== undefined) return text(start, `Read: ${JSON.parse(read.text).summary}`);
  const started = toolResult(body, 'toolu_bash_bg');
  if (started !== undefined) {
    const call = /\{"action":"read_task_output"[^}]*\}/.exec(started.text);
    if (call === null) return text(start, `No task: ${started.text}`);
    return toolUse(start, 'toolu_read_1', 'mcp__relay__relay_tool', JSON.parse(call[0]));
  }
  // A read-only command: Claude Code would run it unasked, were it not for the relay's hook.
  if (JSON.stringify(body.messages[0]).includes('List the folder')) return toolUse(start, 'toolu_bash_bg', 'Bash', { command: 'ls', run_in_background: true });
  return toolUse(start, 'toolu_bash_bg', 'Bash', {
    command: 'echo suite started; while [ ! -f go ]; do sleep 0.1; done; pwd > where.txt; echo suite finished',
    description: 'Run the suite',
    run_in_background: true,
  });
}

beforeAll(async () => {
  configDir = await mkdtemp(join(tmpdir(), 'relay-claude-config-'));
  folder = await mkdtemp(join(tmpdir(), 'relay-claude-suite-'));
  api = await startFakeAnthropicApi({ answer, onTurnRequest: (body) => requests.push(body) });
  relay = await startRelay({
    name: 'desk',
    env: claudeCodeEnv(api, configDir),
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
  await Promise.all([configDir, folder].filter(Boolean).map((path) => rm(path, { recursive: true, force: true })));
});

describe('background work of the real Claude Code', () => {
  it('runs as the relay’s task after the user’s Allow, outlives the turn in the session folder, and the model reads it as told', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'claude-api',
      model: 'claude-sonnet-5-5',
      cwd: folder,
      title: 'Suite',
      text: 'Run the suite in the background.',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sessionId = created.body.session.id;
    // The user's permission stays: a card first.
    const card = await pendingCard(relay, sessionId);
    expect([card.title, ...card.lines].join(' ')).toMatch(/Bash/);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);

    const turn = await finish(relay, sessionId, created.body.message_id);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    // Claude Code handed the model the relay's words: the task, and not to run it again.
    const started = requests.map((body) => toolResult(body, 'toolu_bash_bg')).find((result) => result !== undefined)!;
    const taskId = /background task (task_[0-9a-f]+)/.exec(started.text)![1]!;
    expect(started.text).toContain('Do not run the command again.');
    // The model's read_task_output, made as the answer gave it, reached the gateway: the task runs on.
    expect(turn.reply.text).toMatch(new RegExp(`^Read: read_task_output → desk session \\S+ task ${taskId.slice(5, 13)}: .*running`));

    // The turn is over and Claude Code's process with it; the relay's task still runs, listed on the session.
    const { body: listed } = await relay.api('GET', `/api/v1/sessions/${sessionId}`);
    expect(listed.state).toBe('background_only');
    expect(listed.session.tasks).toEqual([expect.objectContaining({ taskId, type: 'local_bash', description: 'Run the suite', status: 'running' })]);
    await writeFile(join(folder, 'go'), '');
    const ended = await until('the task ended', async () => {
      const read = await relayToolResult(relay, { action: 'read_task_output', relay: 'this', session: sessionId, task_id: taskId });
      return read.task.status === 'running' ? undefined : read;
    });
    expect(ended).toMatchObject({ task: { status: 'completed', exitCode: 0 }, tail: ['suite started', 'suite finished'] });
    expect((await readFile(join(folder, 'where.txt'), 'utf8')).trim()).toBe(folder);
  });

  it('a read-only command Claude Code would run unasked asks too, and runs as the relay’s task', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'claude-api',
      model: 'claude-sonnet-5-5',
      cwd: folder,
      title: 'List',
      text: 'List the folder in the background.',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sessionId = created.body.session.id;
    const card = await pendingCard(relay, sessionId);
    expect([card.title, ...card.lines].join(' ')).toMatch(/Bash/);
    expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    expect(await finish(relay, sessionId, created.body.message_id)).toMatchObject({
      status: 'done',
      reply: { text: expect.stringMatching(/^Read: read_task_output/) },
    });
    const { body } = await relay.api('GET', `/api/v1/sessions/${sessionId}`);
    const [task] = body.session.tasks;
    expect(task).toMatchObject({ type: 'local_bash', description: 'ls' });
    const ended = await until('the listing ended', async () => {
      const read = await relayToolResult(relay, { action: 'read_task_output', relay: 'this', session: sessionId, task_id: task.taskId });
      return read.task.status === 'running' ? undefined : read;
    });
    expect(ended).toMatchObject({ task: { status: 'completed', exitCode: 0 }, tail: expect.arrayContaining(['go', 'where.txt']) });
  });

  it('a sub-agent is the session’s local_agent task while it runs, with no output, and ends with Claude Code’s report', async () => {
    const subagent = hold();
    const main = hold();
    holdSubagent = subagent.hold;
    holdMain = main.hold;
    try {
      const created = await relay.api('POST', '/api/v1/sessions', {
        provider: 'claude-api',
        model: 'claude-sonnet-5-5',
        cwd: folder,
        title: 'Review',
        text: 'Check web/ with a helper.',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const sessionId = created.body.session.id;
      const tasksOf = async () => (await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.session.tasks;
      // Claude Code may ask before it starts the sub-agent: allowed.
      let held = false;
      void subagent.atHold.then(() => (held = true));
      await until('the sub-agent runs', async () => {
        const [card] = (await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`)).body.cards;
        if (card !== undefined) await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' });
        return held || undefined;
      });
      const running = await until('the sub-agent is listed', async () => ((await tasksOf()).length > 0 ? await tasksOf() : undefined));
      expect(running).toEqual([expect.objectContaining({ type: 'local_agent', description: 'Check web/ for XSS', status: 'running', output: false })]);
      expect(running[0].health).toBeUndefined();
      // read_task_output answers the task with its status, no lines, and why.
      const read = await relayToolResult(relay, { action: 'read_task_output', relay: 'this', session: sessionId, task_id: running[0].taskId });
      expect(read).toMatchObject({
        ok: true,
        task: { type: 'local_agent', status: 'running' },
        tail: [],
        notes: [expect.stringContaining('not a shell command')],
      });

      // The sub-agent answers while the turn still runs: Claude Code's report ends its task.
      subagent.release();
      const ended = await until('the sub-agent ended', async () => {
        const [task] = await tasksOf();
        return task.status === 'running' ? undefined : task;
      });
      expect(ended).toMatchObject({ taskId: running[0].taskId, status: 'completed', exitCode: null });
      main.release();
      expect(await finish(relay, sessionId, created.body.message_id)).toMatchObject({ status: 'done', reply: { text: 'The helper found nothing.' } });
    } finally {
      subagent.release();
      main.release();
      holdSubagent = undefined;
      holdMain = undefined;
    }
  });
});
