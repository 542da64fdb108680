// Issue 7 end to end, on a virtual clock 60× faster than real time (one relay minute per real second):
// a `script` session sets schedules through relay_tool; their prompts (script too) are queued into it by the
// scheduler and the session service. The test reads only relay state: message ids (firing id = schedule id +
// due time), the schedule's counters, and relay-clock instants — never how long anything took.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

const MINUTE = 60_000;
let relay: Relay;
/** A wait that times out shows the end of the relay's logs. */
const logs = { detail: () => relay.logs().slice(-4000) };

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

async function startScriptSession(title: string, text: string): Promise<{ id: string; messageId: string }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title, text });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, messageId: created.body.message_id };
}

async function scheduleOf(sessionId: string): Promise<any> {
  const listed = await relay.api('GET', `/api/v1/schedules?session=${sessionId}`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.schedules[0];
}

/** The due times of the firings queued into a session so far (from their message ids), oldest first. */
async function firedDueTimes(sessionId: string): Promise<number[]> {
  const read = await relay.api('GET', `/api/v1/sessions/${sessionId}?last=100`);
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  return read.body.messages.filter((m: { role: string }) => m.role === 'schedule').map((m: { id: string }) => Date.parse(m.id.slice(m.id.indexOf(':') + 1)));
}

/** The due times of the firings the scheduler recorded for a schedule (its own table), oldest first. */
async function recordedDueTimes(scheduleId: string): Promise<number[]> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.scheduler });
  await db.connect();
  try {
    const rows = await db.query<{ due_at: Date }>('SELECT due_at FROM firings WHERE schedule_id = $1 ORDER BY due_at', [scheduleId]);
    return rows.rows.map((row) => row.due_at.getTime());
  } finally {
    await db.end();
  }
}

/**
 * Jumps the relay's clock to the session's schedule's next firing, once the session has run every firing so far (a
 * firing whose previous message still waits would skip): the grid, without waiting for it in real time.
 */
async function jumpToNextFiring(sessionId: string): Promise<void> {
  const schedule = await until(
    'the session ran every firing so far',
    async () => {
      const [current, read] = await Promise.all([scheduleOf(sessionId), relay.api('GET', `/api/v1/sessions/${sessionId}?last=100`)]);
      const fired = read.body.messages.filter((m: { role: string }) => m.role === 'schedule').length;
      return fired === current.firedCount && read.body.session.state === 'idle' ? current : undefined;
    },
    logs,
  );
  await relay.jumpTo(schedule.nextFireAt);
}

/** Sets a schedule from a new script session and returns the session and the schedule the tool answered. */
async function sessionWithSchedule(title: string, schedule: Record<string, unknown>, after: string[] = []): Promise<{ session: string; scheduleId: string }> {
  const started = await startScriptSession(
    title,
    [tool({ action: 'schedule', ...schedule }), 'reply {{result.schedule_id}} {{result.summary}}', ...after].join('\n'),
  );
  const schedule0 = await until('the schedule is set', async () => (await scheduleOf(started.id)) ?? undefined, logs);
  return { session: started.id, scheduleId: schedule0.id };
}

beforeAll(async () => {
  relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: '2026-11-01T00:00:00Z@60x' } });
});

afterAll(async () => {
  await relay?.stop();
});

describe('schedules', () => {
  it('a repeating schedule fires on its grid into its own conversation; the scheduler stopped across three intervals fires once on return, then keeps the grid', async () => {
    const every = 3;
    const { session, scheduleId } = await sessionWithSchedule('Ticker', { title: 'Tick', text: 'reply tick', every_minutes: every });
    const first = await scheduleOf(session);
    expect(first).toMatchObject({ id: scheduleId, title: 'Tick', everyMinutes: every, once: false, firedCount: 0, session: { id: session, title: 'Ticker' } });
    expect(first.setBy).toBeUndefined();
    const at = Date.parse(first.at);

    // Two firings on the grid, each queued as a "schedule" message that the script runs ("reply tick").
    await jumpToNextFiring(session);
    await jumpToNextFiring(session);
    const onGrid = await until(
      'two firings',
      async () => {
        const due = await firedDueTimes(session);
        return due.length >= 2 ? due : undefined;
      },
      logs,
    );
    // The first time, then whole intervals on (a repeat may skip while its previous message still waits).
    expect(onGrid[0]).toBe(at);
    for (const due of onGrid) expect((due - at) % (every * MINUTE)).toBe(0);
    const read = await relay.api('GET', `/api/v1/sessions/${session}?last=100`);
    const tick = read.body.messages.find((m: { role: string }) => m.role === 'schedule');
    expect(tick.text).toMatch(
      new RegExp(`^\\[relay schedule ${scheduleId} "Tick" · every 3 min · automated message from OAR, not from the user; it approves nothing\\]\\nreply tick$`),
    );
    const replies = read.body.messages.filter((m: { role: string; text: string }) => m.role === 'assistant' && m.text.includes('tick'));
    expect(replies.length).toBeGreaterThanOrEqual(1);

    // Down across (more than) three intervals: the relay's clock jumps ten minutes while the scheduler is stopped
    // (it moves with them when it starts again).
    await relay.services.scheduler.stop();
    // What it fired before it stopped, from its own table: a firing still on its way into the session counts too.
    const stoppedAt = await recordedDueTimes(scheduleId);
    const lastBefore = stoppedAt[stoppedAt.length - 1]!;
    // The session has run each of them before the clock moves on: a message still waiting when the scheduler is
    // back would make its next firing skip.
    await until(
      'the session ran every firing so far',
      async () => {
        const { body } = await relay.api('GET', `/api/v1/sessions/${session}?last=100`);
        const fired = body.messages.filter((m: { role: string }) => m.role === 'schedule').length;
        return fired === stoppedAt.length && body.session.state === 'idle' ? true : undefined;
      },
      logs,
    );
    await relay.jumpTo(new Date(relay.now().getTime() + (3 * every + 1) * MINUTE));
    relay.services.scheduler.start();
    await relay.waitReady('scheduler');
    // The gateway's own channel reconnects after its backoff (at most 10 s): the scheduler is back for the user
    // once the gateway lists the schedule again.
    await until(
      'the gateway reaches the restarted scheduler',
      async () => ((await relay.api('GET', `/api/v1/schedules?session=${session}`)).status === 200 ? true : undefined),
      logs,
    );

    await jumpToNextFiring(session);
    const after = await until(
      'one catch-up firing, then the next grid firing',
      async () => {
        const due = await firedDueTimes(session);
        return due.length >= stoppedAt.length + 2 ? due : undefined;
      },
      logs,
    );
    const catchUp = after[stoppedAt.length]!;
    const next = after[stoppedAt.length + 1]!;
    // One firing for all the missed times (the first of them), not one per missed interval …
    expect(catchUp).toBeGreaterThan(lastBefore);
    expect((catchUp - at) % (every * MINUTE)).toBe(0);
    // … then the grid again: the missed grid times (three at least) were not fired one by one.
    expect((next - at) % (every * MINUTE)).toBe(0);
    expect(next - catchUp).toBeGreaterThanOrEqual(3 * every * MINUTE);

    // Ending it: unschedule as the user would Cancel it; it stays listed with endReason for an hour.
    const cancelled = await relay.api('DELETE', `/api/v1/schedules/${scheduleId}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.schedule).toMatchObject({ id: scheduleId, endReason: 'unscheduled' });
    const again = await relay.api('DELETE', `/api/v1/schedules/${scheduleId}`);
    expect(again.status).toBe(404);
  });

  it('a firing whose previous message still waits is skipped and counted; the next one fires once it ran', async () => {
    // The setting turn blocks on a question card, so the first scheduled message waits behind it.
    const { session } = await sessionWithSchedule('Blocked', { title: 'Nudge', text: 'reply nudged', every_minutes: 1 }, ['ask_user Go on? | yes']);
    // The clock jumps to each firing: the first is queued behind the blocked turn, the second finds it still waiting.
    await relay.jumpTo((await scheduleOf(session)).nextFireAt);
    const firedOnce = await until(
      'the first firing',
      async () => {
        const schedule = await scheduleOf(session);
        return schedule.firedCount >= 1 ? schedule : undefined;
      },
      logs,
    );
    await relay.jumpTo(firedOnce.nextFireAt);
    const skipped = await until(
      'a skipped firing',
      async () => {
        const schedule = await scheduleOf(session);
        return schedule.skippedCount >= 1 ? schedule : undefined;
      },
      logs,
    );
    expect(skipped.firedCount).toBe(1);
    // The firing reaches the session through the bus: its message may come a moment after the count.
    const delivered = await until(
      'the first firing’s message in the session',
      async () => {
        const due = await firedDueTimes(session);
        return due.length >= 1 ? due : undefined;
      },
      logs,
    );
    expect(delivered).toHaveLength(1);

    const card = await until(
      'the question card',
      async () => {
        const { body } = await relay.api('GET', `/api/v1/cards?session=${session}&pending=1`);
        return body.cards[0];
      },
      logs,
    );
    const answered = await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'answer', choices: ['yes'] });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);

    await jumpToNextFiring(session);
    const fired = await until(
      'the next firing after the queued message ran',
      async () => {
        const schedule = await scheduleOf(session);
        return schedule.firedCount >= 2 ? schedule : undefined;
      },
      logs,
    );
    expect(fired.skippedCount).toBeGreaterThanOrEqual(1);
  });

  it('a schedule for another session shows setBy there, and ends when that session is archived', async () => {
    const target = await startScriptSession('Target', 'reply ready');
    const setter = await startScriptSession(
      'Setter',
      [
        tool({ action: 'schedule', session: target.id, title: 'Ping', text: 'reply ping', every_minutes: 600 }),
        'reply {{result.summary}}',
        tool({ action: 'archive', relay: 'this', session: target.id }),
        'reply {{result}}',
      ].join('\n'),
    );
    const turn = await until(
      'the setter turn',
      async () => {
        const result = await relay.api('GET', `/api/v1/sessions/${setter.id}/wait?message_id=${setter.messageId}&wait_seconds=120`);
        return ['queued', 'running'].includes(result.body.status) ? undefined : result.body;
      },
      logs,
    );
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply.text.split('\n')[1], turn.reply.text).toMatch(/"ok":true/);
    expect(turn.reply.text).toMatch(/^schedule → desk into session "Target": every 600 min, next \S+ \(sch_[0-9a-f]{12}\)/);
    const ended = await until(
      'the schedule ends with its archived target',
      async () => {
        const schedule = await scheduleOf(target.id);
        return schedule?.endReason ? schedule : undefined;
      },
      logs,
    );
    expect(ended).toMatchObject({
      title: 'Ping',
      session: { id: target.id, title: 'Target' },
      setBy: { id: setter.id, title: 'Setter' },
      endReason: 'archived',
    });
    expect((await scheduleOf(setter.id)).id).toBe(ended.id);
  });

  it('refuses what it must, and changes nothing', async () => {
    const started = await startScriptSession(
      'Refusals',
      [
        tool({ action: 'schedule', title: 'x', text: 'reply x' }),
        'reply {{result.code}}',
        tool({ action: 'schedule', title: 'x', text: 'reply x', at: 'tomorrow' }),
        'reply {{result.code}}',
        tool({ action: 'unschedule', schedule_id: 'sch_000000000000' }),
        'reply {{result.code}}',
        tool({ action: 'list_schedules' }),
        'reply {{result.summary}}',
      ].join('\n'),
    );
    const turn = await until(
      'the refusals turn',
      async () => {
        const result = await relay.api('GET', `/api/v1/sessions/${started.id}/wait?message_id=${started.messageId}&wait_seconds=120`);
        return ['queued', 'running'].includes(result.body.status) ? undefined : result.body;
      },
      logs,
    );
    expect(turn.status).toBe('done');
    expect(turn.reply.text.split('\n')).toEqual([
      'REMOTE_RELAY_INVALID_INPUT',
      'REMOTE_RELAY_INVALID_INPUT',
      'REMOTE_RELAY_NOT_FOUND',
      'list_schedules → desk: 0 schedules, 0 active',
    ]);
    expect(await scheduleOf(started.id)).toBeUndefined();
  });
});
