import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { TurnFailed, type ProviderEvent, type TurnInput } from '../../src/app/turns/provider.ts';
import type { RelayMode } from '../../src/domain/sessions/session.ts';
import type { BackgroundTaskStarter } from '../../src/app/tasks/background-task-starter.ts';
import type { CardRequest, QuestionCards } from '../../src/app/turns/question-cards.ts';
import { NO_STEPS_REPLY, ScriptProvider } from '../../src/adapters/providers/script/script-provider.ts';

const logger = createLogger({ name: 'script-provider-test', level: 'silent' });
const session = { id: 's-1', userId: 'u-1', title: 'T', provider: 'script', model: 'script-1', effort: '', mode: 'agent' as const, cwd: '/tmp' };

/** Starts nothing: records what the provider would run. */
class FakeTasks implements BackgroundTaskStarter {
  started: { sessionId: string; cwd: string; command: string }[] = [];
  /** Why commands are refused (no sandbox), when set. */
  unavailable: string | undefined;
  refusal(): string | undefined {
    return this.unavailable;
  }
  where(cwd: string): string {
    return `test sandbox of ${cwd}`;
  }
  async start(input: { sessionId: string; cwd: string; command: string }): Promise<{ id: string; status: string; description: string }> {
    this.started.push(input);
    return { id: `task_${this.started.length}`, status: 'running', description: input.command };
  }
}

class FakeCards implements QuestionCards {
  raised: CardRequest[] = [];
  cancelled: string[] = [];
  #decide = new Map<string, (answer: string) => void>();

  async raise(input: CardRequest): Promise<string> {
    this.raised.push(input);
    return `card-${this.raised.length}`;
  }
  #withdraw = new Map<string, (error: Error) => void>();
  awaitAnswer(cardId: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#decide.set(cardId, resolve);
      this.#withdraw.set(cardId, reject);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
  async cancel(sessionId: string): Promise<void> {
    this.cancelled.push(sessionId);
  }
  answer(cardId: string, answer: string): void {
    this.#decide.get(cardId)?.(answer);
  }
  /** As GrpcQuestionCards reports a card withdrawn before the user answered. */
  withdraw(cardId: string): void {
    this.#withdraw.get(cardId)?.(new TurnFailed('the question card was withdrawn before the user answered'));
  }
}

function turn(text: string, options: { cards?: FakeCards; clock?: ManualClock; abort?: AbortController; tasks?: FakeTasks; mode?: RelayMode } = {}) {
  const events: ProviderEvent[] = [];
  const cards = options.cards ?? new FakeCards();
  const provider = new ScriptProvider({ gatewayUrl: 'http://127.0.0.1:9', cards, logger, ...(options.tasks === undefined ? {} : { tasks: options.tasks }) });
  const input: TurnInput = {
    session: { ...session, mode: options.mode ?? session.mode },
    message: { id: 'm-1', text },
    token: 'rly_s_test',
    signal: (options.abort ?? new AbortController()).signal,
    clock: options.clock ?? new ManualClock('2026-11-30T10:00:00Z'),
    emit: async (event) => void events.push(event),
  };
  return { reply: provider.startTurn(input), events, cards };
}

async function settled<T>(promise: Promise<T>): Promise<'pending' | 'settled'> {
  return Promise.race([promise.then(() => 'settled' as const, () => 'settled' as const), new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

describe('the script provider', () => {
  it('replies with its reply lines as model script-1, reporting each as text', async () => {
    const { reply, events } = turn('reply one\n# note\nreply two');
    expect(await reply).toEqual({ text: 'one\ntwo', model: 'script-1' });
    expect(events).toEqual([
      { type: 'text', delta: 'one' },
      { type: 'text', delta: '\ntwo' },
    ]);
  });

  it('answers a prompt without steps with the no-steps reply', async () => {
    expect(await turn('Hello, could you look at this?').reply).toEqual({ text: NO_STEPS_REPLY, model: 'script-1' });
    expect(await turn('').reply).toEqual({ text: NO_STEPS_REPLY, model: 'script-1' });
  });

  it('waits on the relay clock', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00Z');
    const { reply } = turn('wait 90\nreply later', { clock });
    expect(await settled(reply)).toBe('pending');
    clock.advance(89_999);
    expect(await settled(reply)).toBe('pending');
    clock.advance(1);
    expect(await reply).toEqual({ text: 'later', model: 'script-1' });
  });

  it('a stop ends a wait at once with the signal’s reason', async () => {
    const abort = new AbortController();
    const { reply } = turn('wait 600\nreply never', { abort });
    expect(await settled(reply)).toBe('pending');
    const reason = new Error('turn aborted: stopped');
    abort.abort(reason);
    await expect(reply).rejects.toBe(reason);
  });

  it('ask_user raises a card in its own session, reports the question while it waits, and goes on with the answer', async () => {
    const { reply, events, cards } = turn('ask_user Ship {{answer}}tonight? | Tonight | Wait\nreply You chose {{answer}}.');
    await new Promise((resolve) => setImmediate(resolve));
    expect(cards.raised).toEqual([{ kind: 'question', userId: 'u-1', sessionId: 's-1', question: 'Ship tonight?', options: ['Tonight', 'Wait'] }]);
    expect(events).toEqual([{ type: 'question_raised', question: { id: 'card-1', kind: 'ask_user', question: 'Ship tonight?', options: ['Tonight', 'Wait'] } }]);
    cards.answer('card-1', 'Tonight');
    expect(await reply).toEqual({ text: 'You chose Tonight.', model: 'script-1' });
    expect(events.slice(1)).toEqual([
      { type: 'question_answered', questionId: 'card-1' },
      { type: 'text', delta: 'You chose Tonight.' },
    ]);
  });

  it('a stop while ask_user waits withdraws the card', async () => {
    const abort = new AbortController();
    const { reply, events, cards } = turn('ask_user Really?\nreply never', { abort });
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort(new Error('stopped'));
    await expect(reply).rejects.toThrow('stopped');
    expect(cards.cancelled).toEqual(['s-1']);
    expect(events.map((e) => e.type)).toEqual(['question_raised']);
  });

  it.each([
    ['fail Deploy blocked', 'Deploy blocked'],
    ['reply first\ntask npm test', 'task is not available yet'],
    ['reply ok\nwat 5', 'script-1: line 2 is not a step (reply, relay_tool, wait, ask_user, fail, task): wat 5'],
    ['wait {{answer}}', 'script-1: line 1: wait needs a number of seconds'],
    ['relay_tool {"action": {{answer}}}', 'script-1: line 1: relay_tool needs a JSON object, and this is not JSON: {"action": }'],
  ])('fails %j with "%s", before anything else runs', async (prompt, message) => {
    const { reply, events } = turn(prompt);
    const error = await reply.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnFailed);
    expect((error as Error).message).toBe(message);
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([]);
  });
});

describe('a task step (a command) runs only on the session owner\'s Allow', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const ORIGINS = {
    'the owner': '',
    'another agent': '[Remote prompt from an agent on relay "desk" · session "Lead" · script-1 · acting for the user]\n',
    'a schedule': '[Scheduled prompt · set by session "Lead" · every day at 09:00]\n',
    'a paired relay': '[Remote prompt from an agent on relay "lab" · session "Far" · script-1 · acting for the user]\n',
  };
  const cases = (['agent', 'ask', 'plan'] as const).flatMap((mode) => Object.entries(ORIGINS).map(([origin, header]) => [mode, origin, header] as const));

  it.each(cases)('in %s mode, a prompt from %s raises an approval card and runs nothing until Allow', async (mode, _origin, header) => {
    const tasks = new FakeTasks();
    const { reply, events, cards } = turn(`${header}task npm test\nreply started {{result.taskId}}`, { tasks, mode });
    await tick();
    const title = 'script-1 wants to run a command';
    expect(cards.raised).toEqual([{ kind: 'approval', userId: 'u-1', sessionId: 's-1', title, lines: ['Folder: /tmp', 'Command: npm test', 'Runs in: test sandbox of /tmp'] }]);
    expect(events).toEqual([
      { type: 'tool_call', name: 'task', input: { command: 'npm test' } },
      { type: 'question_raised', question: { id: 'card-1', kind: 'ask_user', question: title, options: ['Allow', 'Deny'] } },
    ]);
    expect(tasks.started).toEqual([]);
    cards.answer('card-1', 'Allow');
    expect(await reply).toEqual({ text: 'started task_1', model: 'script-1' });
    expect(tasks.started).toEqual([{ sessionId: 's-1', cwd: '/tmp', command: 'npm test' }]);
  });

  it.each([
    ['Deny', (cards: FakeCards) => cards.answer('card-1', 'Deny'), 'The user chose Deny: the command did not run.'],
    ['withdrawn', (cards: FakeCards) => cards.withdraw('card-1'), 'The card was withdrawn before the user decided: the command did not run.'],
  ])('%s: nothing runs and the script reads the refusal (REMOTE_RELAY_PERMISSION) in {{result}}', async (_how, decide, error) => {
    const tasks = new FakeTasks();
    const { reply, events, cards } = turn('task cat ~/.relay/credentials.json\nreply {{result.ok}} {{result.code}}: {{result.error}}', { tasks });
    await tick();
    decide(cards);
    expect(await reply).toEqual({ text: `false REMOTE_RELAY_PERMISSION: ${error}`, model: 'script-1' });
    expect(tasks.started).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'question_raised', 'question_answered', 'text']);
  });

  it('where no sandbox can be had, no card is raised and nothing runs: the script reads why', async () => {
    const tasks = new FakeTasks();
    tasks.unavailable = 'commands do not run on this relay: no sandbox can be had here (bubblewrap (bwrap) is not installed)';
    const { reply, cards } = turn('task cat ~/.relay/credentials.json\nreply {{result.ok}} {{result.code}}: {{result.error}}', { tasks });
    expect(await reply).toEqual({ text: `false REMOTE_RELAY_UNSUPPORTED: The command did not run: ${tasks.unavailable}.`, model: 'script-1' });
    expect(cards.raised).toEqual([]);
    expect(tasks.started).toEqual([]);
  });

  it('a command of any length shows whole on the card, cut into lines under a short title', async () => {
    const tasks = new FakeTasks();
    const command = `echo ${'x'.repeat(2_500)}`;
    const { reply, cards } = turn(`task ${command}\nreply {{result.ok}}`, { tasks });
    await tick();
    const [card] = cards.raised;
    expect(card).toMatchObject({ kind: 'approval', title: 'script-1 wants to run a command' });
    expect(card?.kind === 'approval' && card.lines.slice(1, -1).join('')).toBe(`Command: ${command}`);
    expect(card?.kind === 'approval' && card.lines.at(-1)).toBe('Runs in: test sandbox of /tmp');
    cards.answer('card-1', 'Allow');
    expect(await reply).toEqual({ text: 'true', model: 'script-1' });
    expect(tasks.started.map((task) => task.command)).toEqual([command]);
  });

  it('a command too long to show on a card raises none and runs nothing', async () => {
    const tasks = new FakeTasks();
    const { reply, cards } = turn(`task echo ${'x'.repeat(60_000)}\nreply {{result.code}}`, { tasks });
    expect(await reply).toEqual({ text: 'REMOTE_RELAY_INVALID_INPUT', model: 'script-1' });
    expect(cards.raised).toEqual([]);
    expect(tasks.started).toEqual([]);
  });

  it('a stop while the card waits withdraws it and runs nothing', async () => {
    const abort = new AbortController();
    const tasks = new FakeTasks();
    const { reply, cards } = turn('task npm test', { tasks, abort });
    await tick();
    abort.abort(new Error('stopped'));
    await expect(reply).rejects.toThrow('stopped');
    expect(cards.cancelled).toEqual(['s-1']);
    expect(tasks.started).toEqual([]);
  });
});
