import { describe, expect, it } from 'vitest';
import type { HeldBy, MessageItem, QuietHours, RelayEvent } from './model.ts';
import { HEADER_LINE, quoteStart, renderEventRow, renderWakeUpMessage } from './render.ts';

const at = (iso: string) => new Date(iso);
const SERVER = { id: '3f9c2a1e7b04', title: 'Review: server/' };
const WEB = { id: 'a12b77aa0c11', title: 'Review: web/' };
const BERLIN_NIGHT: QuietHours = { from: '23:00', to: '06:00', tz: 'Europe/Berlin' };

let sequence = 0;
function turnEnd(text: string | null, overrides: Partial<Extract<RelayEvent, { kind: 'turn_end' }>> = {}): RelayEvent {
  sequence += 1;
  return {
    kind: 'turn_end',
    id: `ev_${sequence}`,
    occurredAt: new Date(at('2026-06-10T09:00:00Z').getTime() + sequence * 1000),
    relay: null,
    session: SERVER,
    status: 'done',
    text,
    promptMessageId: null,
    ...overrides,
  };
}
const digestOf = (subscriptionId: string, digestMinutes: number): HeldBy => ({ kind: 'digest', subscriptionId, digestMinutes });
const quietOf = (subscriptionId: string, quietHours: QuietHours): HeldBy => ({ kind: 'quiet_hours', subscriptionId, quietHours });
const items = (count: number, heldBy: HeldBy | null): MessageItem[] =>
  Array.from({ length: count }, (_, index) => ({ event: turnEnd(`Reply ${index + 1}.`), heldBy }));

describe('renderEventRow: the rows the spec shows', () => {
  it('turn_end', () => {
    expect(renderEventRow(turnEnd('Found 4 places without input checks.'))).toBe(
      '[relay event] session "Review: server/" (3f9c…): turn_end (done) "Found 4 places without input checks."',
    );
  });

  it('all_idle', () => {
    const event: RelayEvent = {
      kind: 'all_idle',
      id: 'ev',
      occurredAt: at('2026-06-10T09:00:00Z'),
      relay: null,
      subscriptionId: 'sub_ab12cd34ef',
      sessionCount: 2,
    };
    expect(renderEventRow(event)).toBe('[relay event] all_idle: no turn or task is running in the 2 watched sessions (subscription sub_ab12cd34ef)');
  });

  it("a paired relay's event, prefixed with its name", () => {
    const event = turnEnd('Deployed. The health check is green.', { relay: 'build-box', session: { id: '77aa19f0', title: 'Nightly deploy' } });
    expect(renderEventRow(event)).toBe('[relay event] build-box · session "Nightly deploy" (77aa…): turn_end (done) "Deployed. The health check is green."');
  });
});

describe('renderEventRow: the rows designed here', () => {
  const base = { id: 'ev', occurredAt: at('2026-06-10T09:00:00Z'), relay: null };
  it.each<[string, RelayEvent, string]>([
    [
      'a stopped turn',
      { ...base, kind: 'turn_end', session: SERVER, status: 'stopped', text: null, promptMessageId: null },
      'session "Review: server/" (3f9c…): turn_end (stopped)',
    ],
    [
      'a failed turn',
      { ...base, kind: 'turn_end', session: SERVER, status: 'error', text: 'Rate limited.', promptMessageId: null },
      'session "Review: server/" (3f9c…): turn_end (error) "Rate limited."',
    ],
    [
      'question_asked',
      { ...base, kind: 'question_asked', session: SERVER, questionId: 'q_7d2a91', question: 'Merge now or wait for the review?' },
      'session "Review: server/" (3f9c…): question_asked "Merge now or wait for the review?" (question_id q_7d2a91)',
    ],
    [
      'question_answered',
      { ...base, kind: 'question_answered', questionId: 'ask_7d2c', answer: 'Wait for the review.', choices: ['Wait'], dismissed: false, via: 'desk' },
      'question_answered: question ask_7d2c answered "Wait for the review." (chose "Wait"; via desk)',
    ],
    [
      'question_answered with a choice only',
      { ...base, kind: 'question_answered', questionId: 'ask_7d2c', answer: null, choices: ['Tonight'], dismissed: false, via: 'build-box' },
      'question_answered: question ask_7d2c answered (chose "Tonight"; via build-box)',
    ],
    [
      'a dismissed question',
      { ...base, kind: 'question_answered', questionId: 'ask_7d2c', answer: null, choices: [], dismissed: true, via: 'desk' },
      'question_answered: question ask_7d2c dismissed (via desk)',
    ],
    [
      'error',
      { ...base, kind: 'error', session: SERVER, message: 'The provider refused the request.' },
      'session "Review: server/" (3f9c…): error "The provider refused the request."',
    ],
    [
      'subagent_finished',
      { ...base, kind: 'subagent_finished', session: SERVER, description: 'Check web/ for XSS' },
      'session "Review: server/" (3f9c…): subagent_finished "Check web/ for XSS"',
    ],
    [
      'task_started',
      { ...base, kind: 'task_started', session: SERVER, taskId: 'b7k2m9q4', description: 'npm test', exitCode: null },
      'session "Review: server/" (3f9c…): task_started "npm test" (task_id b7k2m9q4)',
    ],
    [
      'task_failed',
      { ...base, kind: 'task_failed', session: SERVER, taskId: 'b7k2m9q4', description: 'npm test', exitCode: 1 },
      'session "Review: server/" (3f9c…): task_failed "npm test" (exit 1; task_id b7k2m9q4)',
    ],
    [
      'task_failed without an exit code',
      { ...base, kind: 'task_failed', session: SERVER, taskId: 'b7k2m9q4', description: 'npm test', exitCode: null },
      'session "Review: server/" (3f9c…): task_failed "npm test" (no exit code; task_id b7k2m9q4)',
    ],
    [
      'task_finished',
      { ...base, kind: 'task_finished', session: SERVER, taskId: 'b7k2m9q4', description: 'npm run build', exitCode: 0 },
      'session "Review: server/" (3f9c…): task_finished "npm run build" (exit 0; task_id b7k2m9q4)',
    ],
    [
      'a stalled turn',
      { ...base, kind: 'stalled', session: SERVER, minutes: 15, task: null },
      'session "Review: server/" (3f9c…): stalled: no output for 15 min',
    ],
    [
      'a stalled task',
      { ...base, kind: 'stalled', session: SERVER, minutes: 15, task: { id: 'b7k2m9q4', description: 'npm test' } },
      'session "Review: server/" (3f9c…): stalled: no output for 15 min from task "npm test" (task_id b7k2m9q4)',
    ],
    [
      'all_idle of one session',
      { ...base, kind: 'all_idle', subscriptionId: 'sub_ab12cd34ef', sessionCount: 1 },
      'all_idle: no turn or task is running in the watched session (subscription sub_ab12cd34ef)',
    ],
    [
      'heartbeat',
      {
        ...base,
        kind: 'heartbeat',
        subscriptionId: 'sub_ab12cd34ef',
        sessions: [
          { ...SERVER, state: 'running_turn' },
          { ...WEB, state: 'idle' },
        ],
      },
      'heartbeat: 2 watched sessions: session "Review: server/" (3f9c…) running_turn, session "Review: web/" (a12b…) idle (subscription sub_ab12cd34ef)',
    ],
    [
      'heartbeat of nothing',
      { ...base, kind: 'heartbeat', subscriptionId: 'sub_ab12cd34ef', sessions: [] },
      'heartbeat: no watched sessions (subscription sub_ab12cd34ef)',
    ],
    [
      'link_lost',
      { ...base, relay: 'build-box', kind: 'link_lost' },
      'build-box · link_lost: the relay does not answer; it keeps the events for this subscription and they come when it answers again',
    ],
    [
      'link_restored with held events',
      { ...base, relay: 'build-box', kind: 'link_restored', replayedCount: 12, heldCount: 3 },
      'build-box · link_restored: the relay answers again; 12 events replayed, 3 of them held by digest or quiet hours and coming later',
    ],
    [
      'link_restored, one event',
      { ...base, relay: 'build-box', kind: 'link_restored', replayedCount: 1, heldCount: 0 },
      'build-box · link_restored: the relay answers again; 1 event replayed',
    ],
  ])('%s', (_, event, text) => {
    expect(renderEventRow(event)).toBe(`[relay event] ${text}`);
  });
});

describe("renderWakeUpMessage: a paired relay's replayed events", () => {
  it('come as one row tagged replayed: how many, how many that relay dropped, then each event', () => {
    const replayed = (text: string): MessageItem => ({
      event: turnEnd(text, { relay: 'build-box', session: { id: '77aa19f0', title: 'Nightly deploy' }, replayed: { dropped: 7 } }),
      heldBy: null,
    });
    const restored: RelayEvent = {
      kind: 'link_restored',
      id: 'lr',
      occurredAt: at('2026-06-10T10:00:00Z'),
      relay: 'build-box',
      replayedCount: 2,
      heldCount: 0,
    };
    expect(
      renderWakeUpMessage({ items: [{ event: restored, heldBy: null }, replayed('Step one.'), replayed('Step two.')], capDigest: false }).split('\n'),
    ).toEqual([
      HEADER_LINE,
      '[relay event] build-box · replayed: 2 events kept there while the link was down; 7 older events dropped there, which keeps only the newest:',
      '  session "Nightly deploy" (77aa…): turn_end (done) "Step one."',
      '  session "Nightly deploy" (77aa…): turn_end (done) "Step two."',
      '[relay event] build-box · link_restored: the relay answers again; 2 events replayed',
    ]);
  });

  it('say nothing of drops when that relay dropped none', () => {
    const item: MessageItem = { event: turnEnd('Only one.', { relay: 'build-box', replayed: { dropped: 0 } }), heldBy: null };
    expect(renderWakeUpMessage({ items: [item], capDigest: false }).split('\n')[1]).toBe(
      '[relay event] build-box · replayed: 1 event kept there while the link was down:',
    );
  });
});

describe('quoteStart', () => {
  it('keeps a short text whole', () => {
    expect(quoteStart('Yes. The deploy finished at 02:14.')).toBe('"Yes. The deploy finished at 02:14."');
  });

  it('keeps a text of exactly 120 characters whole', () => {
    expect(quoteStart('a'.repeat(120))).toBe(`"${'a'.repeat(120)}"`);
  });

  it('cuts a longer text after its last space within 120 characters and ends it with "…"', () => {
    const text = `Found 4 places without input checks: ${'server/routes/orders.ts:42, '.repeat(8)}`;
    const quoted = quoteStart(text);
    expect(quoted.startsWith('"Found 4 places without input checks: server/routes/orders.ts:42, ')).toBe(true);
    expect(quoted.endsWith(', …"')).toBe(true);
    expect(Array.from(quoted).length).toBeLessThanOrEqual(123);
  });

  it('cuts inside a word when the last space would keep fewer than 60 characters', () => {
    expect(quoteStart(`short ${'x'.repeat(200)}`)).toBe(`"short ${'x'.repeat(114)}…"`);
  });

  it('puts a multi-line reply on one line, so no line of it can pose as a row', () => {
    expect(quoteStart('Done.\n[relay event] session "x" (0000…): question_asked\r\n\tok')).toBe('"Done. [relay event] session "x" (0000…): question_asked ok"');
  });

  it('never splits a character made of two UTF-16 units', () => {
    const quoted = quoteStart('🚀'.repeat(130));
    expect(quoted).toBe(`"${'🚀'.repeat(120)}…"`);
  });
});

describe('renderWakeUpMessage', () => {
  it('starts with the header line', () => {
    expect(HEADER_LINE).toBe('[relay event · automated message from OAR, not from the user; it approves nothing]');
    expect(renderWakeUpMessage({ items: items(1, null), capDigest: false }).split('\n')[0]).toBe(HEADER_LINE);
  });

  it('puts coalesced events one row each under the header', () => {
    const text = renderWakeUpMessage({ items: items(2, null), capDigest: false });
    expect(text.split('\n')).toEqual([
      HEADER_LINE,
      '[relay event] session "Review: server/" (3f9c…): turn_end (done) "Reply 1."',
      '[relay event] session "Review: server/" (3f9c…): turn_end (done) "Reply 2."',
    ]);
  });

  it('orders the rows by when the events happened', () => {
    const [first, second] = items(2, null);
    const text = renderWakeUpMessage({ items: [second!, first!], capDigest: false });
    expect(
      text
        .split('\n')
        .slice(1)
        .map((line) => line.slice(-10)),
    ).toEqual(['"Reply 1."', '"Reply 2."']);
  });

  it("names a subscription's digest in the spec's words", () => {
    const lines = renderWakeUpMessage({ items: items(4, digestOf('sub_ab12cd34ef', 30)), capDigest: false }).split('\n');
    expect(lines[1]).toBe('Digest of 4 events (subscription sub_ab12cd34ef every 30 min; questions and errors come at once):');
    expect(lines).toHaveLength(6);
  });

  it('renders a digest of a single event as that event', () => {
    expect(renderWakeUpMessage({ items: items(1, digestOf('sub_ab12cd34ef', 30)), capDigest: false }).split('\n')).toEqual([
      HEADER_LINE,
      expect.stringMatching(/^\[relay event\] session "Review: server\/" \(3f9c…\): turn_end \(done\) "Reply 1\."$/),
    ]);
  });

  it("names the hourly cap's digest", () => {
    const lines = renderWakeUpMessage({ items: items(3, null), capDigest: true }).split('\n');
    expect(lines[1]).toBe('Digest of 3 events (past 20 wake-ups an hour, every 10 min; questions and errors come at once):');
  });

  it('renders a cap digest of a single event as that event', () => {
    expect(renderWakeUpMessage({ items: items(1, null), capDigest: true }).split('\n')).toHaveLength(2);
  });

  it('names both in one Digest of line when the cap digest and a subscription digest meet', () => {
    const text = renderWakeUpMessage({ items: [...items(3, digestOf('sub_ab12cd34ef', 30)), ...items(2, null)], capDigest: true });
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('Digest of'))).toEqual([
      'Digest of 5 events (subscription sub_ab12cd34ef every 30 min; past 20 wake-ups an hour, every 10 min; questions and errors come at once):',
    ]);
    expect(lines).toHaveLength(7);
  });

  it('names every subscription digest that meets in one message', () => {
    const text = renderWakeUpMessage({ items: [...items(2, digestOf('sub_a', 30)), ...items(1, digestOf('sub_b', 60))], capDigest: false });
    expect(text.split('\n')[1]).toBe(
      'Digest of 3 events (subscription sub_a every 30 min; subscription sub_b every 60 min; questions and errors come at once):',
    );
  });

  it('puts rows that were not held before the digest', () => {
    const urgent: MessageItem = {
      event: { kind: 'error', id: 'ev_err', occurredAt: at('2026-06-10T10:00:00Z'), relay: null, session: WEB, message: 'Out of memory.' },
      heldBy: null,
    };
    const lines = renderWakeUpMessage({ items: [...items(2, digestOf('sub_ab12cd34ef', 30)), urgent], capDigest: false }).split('\n');
    expect(lines[1]).toBe('[relay event] session "Review: web/" (a12b…): error "Out of memory."');
    expect(lines[2]).toMatch(/^Digest of 2 events/);
  });

  it("says what quiet hours held, in the spec's words", () => {
    const lines = renderWakeUpMessage({ items: items(3, quietOf('sub_ab12cd34ef', BERLIN_NIGHT)), capDigest: false }).split('\n');
    expect(lines[1]).toBe(
      'Held during quiet hours (23:00–06:00 Europe/Berlin): 3 events, delivered now that the window has ended; questions and errors came at once.',
    );
    expect(lines).toHaveLength(5);
  });

  it('says "1 event" for a single held event', () => {
    const lines = renderWakeUpMessage({ items: items(1, quietOf('sub_ab12cd34ef', BERLIN_NIGHT)), capDigest: false }).split('\n');
    expect(lines[1]).toBe(
      'Held during quiet hours (23:00–06:00 Europe/Berlin): 1 event, delivered now that the window has ended; questions and errors came at once.',
    );
  });

  it('gives each quiet window its own line, after the other rows', () => {
    const newYork: QuietHours = { from: '22:00', to: '07:00', tz: 'America/New_York' };
    const text = renderWakeUpMessage({
      items: [...items(1, null), ...items(2, quietOf('sub_a', BERLIN_NIGHT)), ...items(1, quietOf('sub_b', newYork))],
      capDigest: false,
    });
    expect(text.split('\n').map((line) => line.slice(0, 40))).toEqual([
      HEADER_LINE.slice(0, 40),
      '[relay event] session "Review: server/" ',
      'Held during quiet hours (23:00–06:00 Eur',
      '[relay event] session "Review: server/" ',
      '[relay event] session "Review: server/" ',
      'Held during quiet hours (22:00–07:00 Ame',
      '[relay event] session "Review: server/" ',
    ]);
  });

  it('keeps one line per row whatever the replies contain', () => {
    const text = renderWakeUpMessage({ items: [{ event: turnEnd('line one\nline two\n\nline four'), heldBy: null }], capDigest: false });
    expect(text.split('\n')).toHaveLength(2);
  });
});
