// The Claude provider against a scripted stand-in for the SDK's query() (the SDK's own port in the
// provider; the real one needs credentials): how SDK messages become turn events, reply, usage,
// resume state, question cards and steering.
import { describe, expect, it } from 'vitest';
import type { Options, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import type { ProviderPause, TurnUsage } from '../../src/domain/usage/usage.ts';
import { EVERY_COMMAND_ASKS } from '../../src/adapters/providers/claude/background-bash.ts';
import type { ClaudeSessionState } from '../../src/app/turns/claude-session-states.ts';
import { ClaudeProvider, HANDED_OVER_NOTE, type ClaudeProviderOptions, type QueryFn } from '../../src/adapters/providers/claude/claude-provider.ts';
import { TurnFailed, type ProviderEvent, type TurnInput } from '../../src/app/turns/provider.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import type { CardRequest, QuestionCards } from '../../src/app/turns/question-cards.ts';

const logger = createLogger({ name: 'claude-provider-test', level: 'silent' });
const NOW = new Date('2026-11-30T10:00:00.000Z');
const session = {
  id: 's-1',
  userId: 'u-1',
  title: 'T',
  provider: 'claude',
  model: 'claude-opus-5-5',
  effort: '',
  mode: 'agent' as const,
  cwd: '/tmp',
  autoCompactWindow: 'auto',
  thinkingEnabled: true,
  thinkingDisplay: 'summarized',
};

/** A scripted query(): `run` reads the prompt stream and yields SDK messages. */
function scripted(run: (prompt: AsyncIterator<SDKUserMessage>, options: Options) => AsyncGenerator<SDKMessage>): { query: QueryFn; calls: Options[] } {
  const calls: Options[] = [];
  return {
    calls,
    query: ({ prompt, options }) => {
      calls.push(options);
      return run(prompt[Symbol.asyncIterator](), options);
    },
  };
}

const text = (delta: string): SDKMessage =>
  ({
    type: 'stream_event',
    parent_tool_use_id: null,
    session_id: 'cc-1',
    uuid: 'u',
    event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } },
  }) as unknown as SDKMessage;
const result = (reply: string, totalCostUsd: number, extra: Record<string, unknown> = {}): SDKMessage =>
  ({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: reply,
    total_cost_usd: totalCostUsd,
    session_id: 'cc-1',
    uuid: 'u',
    usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 },
    modelUsage: {},
    permission_denials: [],
    duration_ms: 1,
    duration_api_ms: 1,
    num_turns: 1,
    stop_reason: 'end_turn',
    ...extra,
  }) as unknown as SDKMessage;
const promptText = (message: SDKUserMessage | undefined) => (message === undefined ? undefined : (message.message.content as string));

/** The relay's tasks as the provider sees them, recorded (the real store and shell are in claude-tasks.int.test.ts). */
class Tasks {
  started: { command: string; description: string | undefined; cwd: string }[] = [];
  refuse: string | undefined;
  log: string[] = [];
  refusal(): string | undefined {
    return undefined;
  }
  where(cwd: string): string {
    return `test sandbox of ${cwd}`;
  }
  async start(input: { sessionId: string; cwd: string; command: string; description?: string | undefined }) {
    if (this.refuse !== undefined) throw new Error(this.refuse);
    this.started.push({ command: input.command, description: input.description, cwd: input.cwd });
    return { id: `task_${this.started.length}`, status: 'running', description: input.description ?? input.command };
  }
  async track(input: { description: string }) {
    this.log.push(`track ${input.description}`);
    return { id: `agent_${this.log.length}` };
  }
  async progress(taskId: string) {
    this.log.push(`progress ${taskId}`);
  }
  async end(taskId: string, status: string, reason = '') {
    this.log.push(`end ${taskId} ${status}${reason === '' ? '' : ' (turn over)'}`);
  }
}

class Cards implements QuestionCards {
  raised: CardRequest[] = [];
  answers: string[] = [];
  async raise(input: CardRequest): Promise<string> {
    this.raised.push(input);
    return `card-${this.raised.length}`;
  }
  async awaitAnswer(): Promise<string> {
    return this.answers.shift() ?? '';
  }
  async cancel(): Promise<void> {}
}

function setUp(query: QueryFn, overrides: Partial<ClaudeProviderOptions> = {}, state?: ClaudeSessionState) {
  const recorded: TurnUsage[] = [];
  const pauses: ProviderPause[] = [];
  const states = new Map<string, ClaudeSessionState>(state === undefined ? [] : [['s-1', state]]);
  const cards = new Cards();
  const tasks = new Tasks();
  const clock = new ManualClock(NOW);
  const provider = new ClaudeProvider('claude', {
    billing: { provider: 'claude', oauthToken: 'oauth' },
    missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
    executable: { path: '/opt/claude/claude', reason: '' },
    models: ['claude-opus-5-5'],
    gatewayUrl: 'http://127.0.0.1:7420',
    cards,
    tasks,
    sandbox: {
      unavailable: undefined,
      machine: 'on this machine',
      locate: async () => [],
      where: (folder: string) => `test sandbox of ${folder}`,
      spawn: () => {
        throw new Error('not spawned in this test');
      },
    },
    states: { get: async (id) => states.get(id), set: async (id, value) => void states.set(id, value) },
    usage: { record: async (usage) => void recorded.push(usage), pause: async (pause) => void pauses.push(pause) },
    logger,
    baseEnv: {},
    query,
    hasTranscript: async () => true,
    history: async () => [],
    ...overrides,
  });
  const events: ProviderEvent[] = [];
  const abort = new AbortController();
  const input: TurnInput = {
    session,
    message: { id: 'm-1', text: 'Review server/' },
    token: 'rly_s_t',
    signal: abort.signal,
    clock,
    emit: async (event) => void events.push(event),
  };
  return { provider, input, events, recorded, pauses, states, cards, tasks, abort, clock };
}

describe('the Claude provider', () => {
  it('is unavailable without its credential or without Claude Code’s executable, saying why', () => {
    const { query } = scripted(async function* () {});
    expect(setUp(query, { billing: undefined }).provider.availability()).toEqual({
      available: false,
      reason: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
    });
    expect(setUp(query, { executable: { path: undefined, reason: 'no binary' } }).provider.availability()).toEqual({ available: false, reason: 'no binary' });
    expect(setUp(query).provider.availability()).toEqual({ available: true, reason: '' });
    const noSandbox = {
      unavailable: 'commands do not run on this relay: no sandbox can be had here (bwrap missing)',
      machine: 'on this machine',
      locate: async () => [],
      where: () => '',
      spawn: () => {
        throw new Error('not spawned in this test');
      },
    };
    expect(setUp(query, { sandbox: noSandbox }).provider.availability()).toEqual({
      available: false,
      reason: `Claude Code runs commands, and ${noSandbox.unavailable}`,
    });
    expect(setUp(query).provider.canSteer).toBe(true);
  });

  it('streams text, reports tool calls, replies with the result, records tokens and the turn’s cost, keeps the session to resume', async () => {
    const { query, calls } = scripted(async function* (prompt) {
      expect(promptText((await prompt.next()).value)).toBe('Review server/');
      yield text('Looking');
      yield {
        type: 'assistant',
        parent_tool_use_id: null,
        session_id: 'cc-1',
        uuid: 'u',
        message: { content: [{ type: 'tool_use', id: 't1', name: 'mcp__relay__relay_tool', input: { action: 'list_sessions' } }] },
      } as unknown as SDKMessage;
      yield text(' done.');
      yield result('Looking done.', 1.5);
    });
    const { provider, input, events, recorded, states } = setUp(query, {}, { resumeId: 'cc-0', costUsdTotal: 1.25 });
    expect(await provider.startTurn(input)).toEqual({ text: 'Looking done.', model: 'claude-opus-5-5' });
    expect(calls[0]).toMatchObject({ resume: 'cc-0', allowedTools: ['mcp__relay__relay_tool'] });
    expect(events).toEqual([
      // The session that now holds this turn is its resume point, as soon as the SDK names it.
      { type: 'resume_point', point: { resumeId: 'cc-1', costUsdTotal: 1.25 }, parked: false },
      { type: 'text', delta: 'Looking' },
      { type: 'tool_call', name: 'mcp__relay__relay_tool', input: { action: 'list_sessions' } },
      { type: 'text', delta: ' done.' },
    ]);
    // The SDK's total is cumulative over the resumed session: this turn cost the rise, 0.25.
    expect(recorded).toEqual([
      { messageId: 'm-1', sessionId: 's-1', provider: 'claude', model: 'claude-opus-5-5', inputTokens: 130, outputTokens: 20, costUsd: 0.25, recordedAt: NOW },
    ]);
    expect(states.get('s-1')).toEqual({ resumeId: 'cc-1', costUsdTotal: 1.5 });
  });

  it('fails the turn with Claude Code’s error, and a usage limit pauses the provider until its reset', async () => {
    const resetsAt = Date.parse('2026-11-30T15:00:00.000Z') / 1000;
    const { query } = scripted(async function* (prompt) {
      await prompt.next();
      yield { type: 'rate_limit_event', session_id: 'cc-1', uuid: 'u', rate_limit_info: { status: 'rejected', resetsAt } } as unknown as SDKMessage;
      yield { ...result('', 0), subtype: 'error_during_execution', is_error: true, errors: ['usage limit reached'] } as unknown as SDKMessage;
    });
    const { provider, input, pauses, recorded } = setUp(query);
    const failure = await provider.startTurn(input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnFailed);
    expect((failure as Error).message).toBe('Claude Code: usage limit reached');
    // A failed turn used what it used.
    expect(recorded).toMatchObject([{ messageId: 'm-1', provider: 'claude', inputTokens: 130, outputTokens: 20 }]);
    expect(pauses).toEqual([
      { provider: 'claude', until: new Date('2026-11-30T15:00:00.000Z'), reason: 'a Claude usage limit holds turns until 2026-11-30T15:00:00.000Z' },
    ]);
    // The pause is the ledger's (PostgreSQL), so every replica's runner holds queued turns until the reset
    // (test/usage/usage-pause.int.test.ts); the plug-in itself stays able to run.
    expect(new ProviderRegistry([provider]).canRun('claude')).toBe(true);
  });

  it('takes steered text into the running turn and lasts until it is answered; refuses it once the turn is over', async () => {
    let steered: string | undefined;
    // As Claude Code does: text that arrives after the last tool round is answered by a turn of its own, each
    // result echoing the uuids of the messages it consumed.
    const { query } = scripted(async function* (prompt) {
      const first = (await prompt.next()).value as SDKUserMessage;
      yield text('working');
      const second = (await prompt.next()).value as SDKUserMessage;
      steered = promptText(second);
      yield result('working on it', 0.1, { user_message_uuids: [first.uuid], queued_turn_count: 0 });
      yield result('saw the event', 0.2, { user_message_uuids: [second.uuid], queued_turn_count: 0 });
    });
    const { provider, input } = setUp(query);
    const reply = provider.startTurn(input);
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.steer('s-1', '[relay event · 1 event]\nsession "B": turn_end')).toBe(true);
    expect(await reply).toMatchObject({ text: 'saw the event' });
    expect(steered).toBe('[relay event · 1 event]\nsession "B": turn_end');
    expect(provider.steer('s-1', 'too late')).toBe(false);
    expect(provider.steer('s-other', 'no turn')).toBe(false);
  });

  it('turns a permission prompt into an approval card (only the owner decides it) and the agent’s question into a question card', async () => {
    const decisions: unknown[] = [];
    const { query } = scripted(async function* (prompt, options) {
      await prompt.next();
      const signal = new AbortController().signal;
      decisions.push(
        await options.canUseTool!('Bash', { command: 'rm -rf build' }, { signal, toolUseID: 't1', requestId: 'r1', title: 'Claude wants to run rm -rf build' }),
      );
      decisions.push(await options.canUseTool!('Bash', { command: 'ls' }, { signal, toolUseID: 't2', requestId: 'r2' }));
      decisions.push(
        await options.canUseTool!(
          'AskUserQuestion',
          { questions: [{ question: 'Which branch?', header: 'Branch', multiSelect: false, options: [{ label: 'main' }, { label: 'dev' }] }] },
          { signal, toolUseID: 't3', requestId: 'r3' },
        ),
      );
      yield result('ok', 0);
    });
    const { provider, input, events, cards } = setUp(query);
    cards.answers = ['Deny', 'Allow', 'dev'];
    await provider.startTurn(input);
    const card = { userId: 'u-1', sessionId: 's-1' };
    expect(cards.raised).toEqual([
      {
        ...card,
        kind: 'approval',
        title: 'Claude wants to run rm -rf build',
        lines: ['Folder: /tmp', 'Tool: Bash', 'command: rm -rf build', 'Runs in: test sandbox of /tmp'],
      },
      { ...card, kind: 'approval', title: 'Claude wants to use Bash', lines: ['Folder: /tmp', 'Tool: Bash', 'command: ls', 'Runs in: test sandbox of /tmp'] },
      { ...card, kind: 'question', question: 'Which branch?', options: ['main', 'dev'] },
    ]);
    expect(decisions).toEqual([
      { behavior: 'deny', message: 'The user chose Deny.' },
      { behavior: 'allow', updatedInput: { command: 'ls' } },
      { behavior: 'allow', updatedInput: expect.objectContaining({ answers: { 'Which branch?': 'dev' } }) },
    ]);
    expect(events.filter((event) => event.type === 'question_raised')).toHaveLength(3);
    expect(events.filter((event) => event.type === 'question_answered')).toHaveLength(3);
  });

  it('reports a finished sub-agent', async () => {
    const { query } = scripted(async function* (prompt) {
      await prompt.next();
      yield {
        type: 'system',
        subtype: 'task_started',
        task_id: 'a1',
        description: 'Check web/ for XSS',
        session_id: 'cc-1',
        uuid: 'u',
      } as unknown as SDKMessage;
      yield {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'a1',
        status: 'completed',
        output_file: '',
        summary: 'No XSS found',
        session_id: 'cc-1',
        uuid: 'u',
      } as unknown as SDKMessage;
      yield result('ok', 0);
    });
    const { provider, input, events } = setUp(query);
    await provider.startTurn(input);
    expect(events).toContainEqual({ type: 'subagent_finished', description: 'Check web/ for XSS', status: 'completed', summary: 'No XSS found' });
  });

  it('runs a background Bash the user allowed as the relay’s task and tells Claude Code so; a foreground one still runs in Claude Code', async () => {
    const decisions: unknown[] = [];
    const { query, calls } = scripted(async function* (prompt, options) {
      await prompt.next();
      const signal = new AbortController().signal;
      const ask = (input: Record<string, unknown>, id: string) => options.canUseTool!('Bash', input, { signal, toolUseID: id, requestId: id });
      decisions.push(await ask({ command: 'npm test', description: 'Run the test suite', run_in_background: true }, 't1'));
      decisions.push(await ask({ command: 'npm run build', run_in_background: false }, 't2'));
      decisions.push(await ask({ command: 'rm -rf /', run_in_background: true }, 't3'));
      yield result('ok', 0);
    });
    const { provider, input, cards, tasks } = setUp(query);
    cards.answers = ['Allow', 'Allow', 'Deny'];
    await provider.startTurn(input);
    // Every Bash always asks, even one Claude Code would allow unasked (the hook).
    expect(calls[0]!.hooks?.PreToolUse).toEqual([EVERY_COMMAND_ASKS]);
    // The card stays: it is the user's permission, for a background command too.
    expect(cards.raised.map((card) => (card.kind === 'approval' ? card.title : card.kind))).toEqual([
      'Claude wants to use Bash',
      'Claude wants to use Bash',
      'Claude wants to use Bash',
    ]);
    expect(tasks.started).toEqual([{ command: 'npm test', description: 'Run the test suite', cwd: '/tmp' }]);
    expect(decisions[0]).toEqual({ behavior: 'deny', message: expect.stringContaining('background task task_1') });
    expect((decisions[0] as { message: string }).message).toContain('{"action":"read_task_output","relay":"this","session":"s-1","task_id":"task_1"}');
    expect((decisions[0] as { message: string }).message).toContain('Do not run the command again.');
    expect(decisions[1]).toEqual({ behavior: 'allow', updatedInput: { command: 'npm run build', run_in_background: false } });
    expect(decisions[2]).toEqual({ behavior: 'deny', message: 'The user chose Deny.' });
  });

  it('denies a background Bash with why when the relay cannot start it', async () => {
    let decision: unknown;
    const { query } = scripted(async function* (prompt, options) {
      await prompt.next();
      decision = await options.canUseTool!(
        'Bash',
        { command: 'make', run_in_background: true },
        { signal: new AbortController().signal, toolUseID: 't1', requestId: 'r1' },
      );
      yield result('ok', 0);
    });
    const { provider, input, cards, tasks } = setUp(query);
    cards.answers = ['Allow'];
    tasks.refuse = "the session's folder /tmp/gone does not exist on this relay";
    await provider.startTurn(input);
    expect(decision).toEqual({
      behavior: 'deny',
      message:
        "The relay could not start this command as a background task: the session's folder /tmp/gone does not exist on this relay. The command did not run.",
    });
  });

  it('keeps sub-agents as tasks while they run: each ends with its notification’s status, the rest are stopped with the turn; a shell of Claude Code’s is not one', async () => {
    const system = (fields: Record<string, unknown>) => ({ type: 'system', session_id: 'cc-1', uuid: 'u', ...fields }) as unknown as SDKMessage;
    let midTurn: string[] = [];
    const { query } = scripted(async function* (prompt) {
      await prompt.next();
      yield system({ subtype: 'task_started', task_id: 'a1', description: 'Check web/ for XSS', task_type: 'local_agent' });
      yield system({ subtype: 'task_started', task_id: 'a2', description: 'Run the e2e suite', task_type: 'local_agent' });
      yield system({ subtype: 'task_started', task_id: 'b1', description: 'tail -f log', task_type: 'local_bash' });
      yield system({ subtype: 'task_progress', task_id: 'a2', description: 'Run the e2e suite', usage: { total_tokens: 1, tool_uses: 1, duration_ms: 1 } });
      yield system({ subtype: 'task_notification', task_id: 'a1', status: 'failed', output_file: '', summary: 'Could not read web/' });
      midTurn = [...tasks.log];
      yield result('ok', 0);
    });
    const { provider, input, events, tasks } = setUp(query);
    await provider.startTurn(input);
    expect(midTurn).toEqual(['track Check web/ for XSS', 'track Run the e2e suite', 'progress agent_2', 'end agent_1 failed']);
    expect(tasks.log.slice(midTurn.length)).toEqual(['end agent_2 stopped (turn over)']);
    // subagent_finished as before: only for the notification.
    expect(events.filter((event) => event.type === 'subagent_finished')).toEqual([
      { type: 'subagent_finished', description: 'Check web/ for XSS', status: 'failed', summary: 'Could not read web/' },
    ]);
  });

  it('fails the turn with why when Claude Code cannot run or stops without a result', async () => {
    // eslint-disable-next-line require-yield -- Claude Code that fails before it says anything
    const broken = scripted(async function* (prompt) {
      await prompt.next();
      throw new Error('Claude Code process exited with code 1');
    });
    const first = setUp(broken.query);
    const failure = await first.provider.startTurn(first.input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnFailed);
    expect((failure as Error).message).toBe('Claude Code failed: Claude Code process exited with code 1');
    const silent = scripted(async function* (prompt) {
      await prompt.next();
      yield text('half');
    });
    const { provider, input } = setUp(silent.query);
    await expect(provider.startTurn(input)).rejects.toThrow(new TurnFailed('Claude Code ended without finishing the turn'));
  });

  it('stops when the turn is stopped: the SDK is aborted and the turn ends with the signal’s reason', async () => {
    let aborted: AbortSignal | undefined;
    const { query } = scripted(async function* (prompt, options) {
      await prompt.next();
      aborted = options.abortController!.signal;
      yield text('working');
      await new Promise((_, reject) => aborted!.addEventListener('abort', () => reject(new Error('aborted by the host')), { once: true }));
    });
    const { provider, input, abort } = setUp(query);
    const reply = provider.startTurn(input);
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort(new Error('turn aborted: stopped'));
    await expect(reply).rejects.toThrow('turn aborted: stopped');
    expect(aborted!.aborted).toBe(true);
  });

  it('starts Claude Code afresh with the relay’s record of the conversation when its session is not here to resume', async () => {
    let firstPrompt: string | undefined;
    const { query, calls } = scripted(async function* (prompt) {
      firstPrompt = promptText((await prompt.next()).value);
      yield result('ok', 0.05);
    });
    const { provider, input, recorded } = setUp(
      query,
      {
        hasTranscript: async (resumeId) => resumeId !== 'cc-on-another-replica',
        history: async () => [
          { role: 'user', content: 'Review server/' },
          { role: 'assistant', content: 'Found 4 places.' },
        ],
      },
      { resumeId: 'cc-on-another-replica', costUsdTotal: 3 },
    );
    await provider.startTurn({ ...input, message: { id: 'm-2', text: 'Fix them.' } });
    expect(calls[0]!.resume).toBeUndefined();
    expect(firstPrompt).toBe(
      '[Earlier in this conversation, as the relay recorded it (your own session of it is not on this machine):]\nuser: Review server/\n\nassistant: Found 4 places.\n[End of the earlier conversation.]\n\nFix them.',
    );
    // A new Claude Code session counts its cost from zero.
    expect(recorded[0]!.costUsd).toBeCloseTo(0.05);
  });

  it('a turn handed over from another replica goes on in its Claude Code session, told that it moved', async () => {
    let firstPrompt: string | undefined;
    const { query, calls } = scripted(async function* (prompt) {
      firstPrompt = promptText((await prompt.next()).value);
      yield result('Went on.', 2.5);
    });
    const { provider, input, recorded } = setUp(query, {}, { resumeId: 'cc-earlier-turn', costUsdTotal: 1 });
    expect(await provider.startTurn({ ...input, resume: { resumeId: 'cc-7', costUsdTotal: 2 } })).toEqual({ text: 'Went on.', model: 'claude-opus-5-5' });
    expect(calls[0]!.resume).toBe('cc-7');
    // The session holds the message already: only the note goes in, and the turn costs what it rose since.
    expect(firstPrompt).toBe(HANDED_OVER_NOTE);
    expect(recorded[0]!.costUsd).toBeCloseTo(0.5);
  });

  it('a turn handed over where its Claude Code session is not starts again from the relay’s record, with the message and the note', async () => {
    let firstPrompt: string | undefined;
    const { query, calls } = scripted(async function* (prompt) {
      firstPrompt = promptText((await prompt.next()).value);
      yield result('ok', 0.05);
    });
    const { provider, input } = setUp(query, { hasTranscript: async () => false, history: async () => [{ role: 'user', content: 'Hello' }] });
    await provider.startTurn({ ...input, resume: { resumeId: 'cc-7', costUsdTotal: 2 } });
    expect(calls[0]!.resume).toBeUndefined();
    expect(firstPrompt).toBe(
      `[Earlier in this conversation, as the relay recorded it (your own session of it is not on this machine):]\nuser: Hello\n[End of the earlier conversation.]\n\nReview server/\n\n${HANDED_OVER_NOTE}`,
    );
  });
});
