import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { TurnFailed, TurnHandedOver, type ProviderEvent, type ResumePoint, type TurnInput } from '../../src/app/turns/provider.ts';
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

  /** The card of each raise id, as the question service answers a raise made again. */
  #raisedAs = new Map<string, string>();
  async raise(input: CardRequest): Promise<string> {
    const earlier = input.raiseId === undefined ? undefined : this.#raisedAs.get(input.raiseId);
    if (earlier !== undefined) return earlier;
    this.raised.push(input);
    const cardId = `card-${this.raised.length}`;
    if (input.raiseId !== undefined) this.#raisedAs.set(input.raiseId, cardId);
    return cardId;
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

type TurnOptions = { cards?: FakeCards; clock?: ManualClock; abort?: AbortController; tasks?: FakeTasks; mode?: RelayMode; resume?: ResumePoint };

/** Runs a script turn: `events` are what it reports but its resume points, which `points` keep (with parked). */
function turn(text: string, options: TurnOptions = {}) {
  const events: ProviderEvent[] = [];
  const points: { point: ResumePoint; parked: boolean }[] = [];
  const cards = options.cards ?? new FakeCards();
  const provider = new ScriptProvider({ gatewayUrl: 'http://127.0.0.1:9', cards, logger, ...(options.tasks === undefined ? {} : { tasks: options.tasks }) });
  const input: TurnInput = {
    session: { ...session, mode: options.mode ?? session.mode },
    message: { id: 'm-1', text },
    token: 'rly_s_test',
    signal: (options.abort ?? new AbortController()).signal,
    clock: options.clock ?? new ManualClock('2026-11-30T10:00:00Z'),
    emit: async (event) => void (event.type === 'resume_point' ? points.push({ point: event.point, parked: event.parked }) : events.push(event)),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
  };
  return { reply: provider.startTurn(input), events, points, cards };
}

async function settled<T>(promise: Promise<T>): Promise<'pending' | 'settled'> {
  return Promise.race([
    promise.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending'))),
  ]);
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
    expect(cards.raised).toEqual([
      { kind: 'question', userId: 'u-1', sessionId: 's-1', raiseId: 'm-1:1', question: 'Ship tonight?', options: ['Tonight', 'Wait'] },
    ]);
    expect(events).toEqual([
      { type: 'question_raised', question: { id: 'card-1', kind: 'ask_user', question: 'Ship tonight?', options: ['Tonight', 'Wait'] } },
    ]);
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

describe("a task step (a command) runs only on the session owner's Allow", () => {
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
    const line = header === '' ? 1 : 2;
    expect(cards.raised).toEqual([
      {
        kind: 'approval',
        userId: 'u-1',
        sessionId: 's-1',
        raiseId: `m-1:${line}`,
        title,
        lines: ['Folder: /tmp', 'Command: npm test', 'Runs in: test sandbox of /tmp'],
      },
    ]);
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

describe('a script turn handed to another replica goes on from its step', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('saves where it is before each step: parked while it only waits, with a wait’s end and the answers so far', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00Z');
    const { reply, points, cards } = turn('reply a\nwait 60\nask_user Go? | Yes | No\nreply {{answer}}', { clock });
    await tick();
    clock.advance(60_000);
    await tick();
    cards.answer('card-1', 'Yes');
    expect(await reply).toEqual({ text: 'a\nYes', model: 'script-1' });
    expect(points).toEqual([
      { point: { step: 0, variables: { answer: '' }, lines: [] }, parked: false },
      { point: { step: 1, variables: { answer: '' }, lines: ['a'], until: '2026-11-30T10:01:00.000Z' }, parked: false },
      { point: { step: 2, variables: { answer: '' }, lines: ['a'] }, parked: true },
      { point: { step: 3, variables: { answer: 'Yes' }, lines: ['a'] }, parked: false },
    ]);
  });

  it('handed over while ask_user waits: the card stays; the next replica waits on the same card and goes on once it is answered', async () => {
    const cards = new FakeCards();
    const abort = new AbortController();
    const first = turn('reply a\nask_user Go? | Yes | No\nreply {{answer}}', { cards, abort });
    await tick();
    abort.abort(new TurnHandedOver('handed over'));
    await expect(first.reply).rejects.toBeInstanceOf(TurnHandedOver);
    expect(cards.cancelled).toEqual([]);
    expect(first.events.map((e) => e.type)).toEqual(['text', 'question_raised']);

    const next = turn('reply a\nask_user Go? | Yes | No\nreply {{answer}}', { cards, resume: first.points.at(-1)!.point });
    await tick();
    cards.answer('card-1', 'Yes');
    expect(await next.reply).toEqual({ text: 'a\nYes', model: 'script-1' });
    // One card in all; the reply so far shows again, then the question (the same card) and the rest.
    expect(cards.raised).toHaveLength(1);
    expect(next.events).toEqual([
      { type: 'text', delta: 'a' },
      { type: 'question_raised', question: { id: 'card-1', kind: 'ask_user', question: 'Go?', options: ['Yes', 'No'] } },
      { type: 'question_answered', questionId: 'card-1' },
      { type: 'text', delta: '\nYes' },
    ]);
  });

  it('a wait taken over waits only what is left of it', async () => {
    const clock = new ManualClock('2026-11-30T10:00:30Z');
    const { reply } = turn('wait 60\nreply later', { clock, resume: { step: 0, variables: { answer: '' }, lines: [], until: '2026-11-30T10:01:00.000Z' } });
    clock.advance(29_999);
    expect(await settled(reply)).toBe('pending');
    clock.advance(1);
    expect(await reply).toEqual({ text: 'later', model: 'script-1' });
  });

  it.each([
    ['relay_tool {"action":"send","session":"s-2","text":"hi"}', 'relay_tool send'],
    ['task npm test', 'the allowed command’s start'],
  ])('a step whose effect was under way (%s) is not done again: the turn ends saying so', async (step, what) => {
    const tasks = new FakeTasks();
    const { reply, events, cards } = turn(`reply a\n${step}\nreply b`, { tasks, resume: { step: 1, variables: { answer: '' }, lines: ['a'], effect: what } });
    const error = await reply.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnFailed);
    expect((error as Error).message).toBe(
      `script-1: line 2: ${what} was under way when the relay handed this turn to another of its replicas; it is not done twice, so the turn ends here. Check what it did, then send again`,
    );
    expect([events, cards.raised, tasks.started]).toEqual([[], [], []]);
  });

  it('marks an allowed command’s start as under way before it starts, its card’s wait as parked', async () => {
    const tasks = new FakeTasks();
    const { reply, points, cards } = turn('task npm test\nreply {{result.taskId}}', { tasks });
    await tick();
    cards.answer('card-1', 'Allow');
    expect(await reply).toEqual({ text: 'task_1', model: 'script-1' });
    expect(points.map(({ point, parked }) => [point['step'], point['effect'], parked])).toEqual([
      [0, undefined, true],
      [0, 'the allowed command’s start', false],
      [1, undefined, false],
    ]);
  });
});
