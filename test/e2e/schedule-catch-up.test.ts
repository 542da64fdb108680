// Issue 39, item 3, end to end on a virtual clock at real speed: the whole relay is down over a schedule's due
// times; when it comes back, the scheduler's first pass comes before the session service answers, so the firing's
// loop guard (the schedule is for another session) cannot be asked. The one catch-up firing then goes as soon as
// the session service answers — within a few seconds of relay time — not a minute later, and only once. The test
// reads relay state and relay-clock instants only (the firings table's fired_at, the harness's relay clock).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { STATEFUL, startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

const MINUTE = 60_000;
let relay: Relay;
const logs = { detail: () => relay.logs().slice(-4000), timeoutMs: 120_000 };
const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

async function schedulerQuery<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T[]> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.scheduler });
  await db.connect();
  try {
    return (await db.query<T>(sql, params)).rows;
  } finally {
    await db.end();
  }
}

beforeAll(async () => {
  // A virtual clock at real speed, so the test can jump it over the due times while the relay is down.
  relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: new Date().toISOString() } });
}, 300_000);

afterAll(async () => {
  await relay?.stop();
});

it('after the whole relay was down over due times, the one catch-up firing goes within seconds of the session service answering', async () => {
  const target = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Target', text: 'reply ready' });
  expect(target.status, JSON.stringify(target.body)).toBe(201);
  const targetId: string = target.body.session.id;
  const setter = await relay.api('POST', '/api/v1/sessions', {
    provider: 'script',
    title: 'Setter',
    text: [tool({ action: 'schedule', session: targetId, title: 'Hourly ping', text: 'reply ping', every_minutes: 60 }), 'reply {{result.schedule_id}}'].join(
      '\n',
    ),
  });
  expect(setter.status, JSON.stringify(setter.body)).toBe(201);
  const schedule = await until(
    'the schedule is set',
    async () => {
      const listed = await relay.api('GET', `/api/v1/schedules?session=${targetId}`);
      return listed.body.schedules?.[0];
    },
    logs,
  );
  const firstMissed = Date.parse(schedule.nextFireAt);

  // The whole relay stops; its clock passes three due times while it is down.
  await relay.services.gateway.stop();
  await Promise.all(STATEFUL.map((service) => relay.services[service].stop()));
  await relay.jumpTo(new Date(firstMissed + 3 * 60 * MINUTE + MINUTE));

  // The scheduler is back first: its first pass cannot ask the loop guard, and keeps the firing due.
  relay.services.scheduler.start();
  await relay.waitReady('scheduler');
  await until(
    'the first pass kept the firing due (the loop guard could not be asked)',
    async () => {
      const rows = await schedulerQuery<{ pending_fire_at: Date | null }>('SELECT pending_fire_at FROM schedules WHERE id = $1', [schedule.id]);
      return rows[0]?.pending_fire_at ? true : undefined;
    },
    logs,
  );
  expect(await schedulerQuery('SELECT id FROM firings WHERE schedule_id = $1', [schedule.id])).toEqual([]);

  relay.services.session.start();
  await relay.waitReady('session');
  const readyAt = relay.now().getTime();
  const firings = await until(
    'the catch-up firing',
    async () => {
      const rows = await schedulerQuery<{ due_at: Date; fired_at: Date }>('SELECT due_at, fired_at FROM firings WHERE schedule_id = $1', [schedule.id]);
      return rows.length > 0 ? rows : undefined;
    },
    logs,
  );
  // Within a few seconds of relay time of the session service answering (a minute before the fix).
  expect(firings[0]!.fired_at.getTime() - readyAt).toBeLessThan(15_000);
  expect(firings.map((row) => row.due_at.getTime())).toEqual([firstMissed]);

  // Once: the rest of the relay comes back and the target gets one scheduled prompt for the three missed times.
  for (const service of ['subscription', 'question', 'pairing', 'gateway'] as const) relay.services[service].start();
  await Promise.all((['subscription', 'question', 'pairing', 'gateway'] as const).map((service) => relay.waitReady(service)));
  const prompts = await until(
    'the scheduled prompt in the target',
    async () => {
      const read = await relay.api('GET', `/api/v1/sessions/${targetId}?last=100`);
      const scheduled = (read.body.messages ?? []).filter((message: { role: string }) => message.role === 'schedule');
      return scheduled.length > 0 ? scheduled : undefined;
    },
    logs,
  );
  expect(prompts).toHaveLength(1);
  expect(await schedulerQuery('SELECT id FROM firings WHERE schedule_id = $1', [schedule.id])).toHaveLength(1);
});
