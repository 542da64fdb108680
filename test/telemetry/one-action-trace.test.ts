// One user action is one trace you can follow: from the first span of an MCP `send`, parent edges (inside a trace)
// and span links (to work that starts a trace of its own: a queued turn, a wake-up digesting events, a schedule's
// firing) reach the script turn it queued, the wake-up that turn's end caused and the watcher's turn it started.
// And the relay's background loops (outbox relays, the subscription planner, the turn runner, the firing loop, an open
// console page's stream) record nothing at rest: no trace grows once its work is over. Real services, exporting OTLP to a receiver on loopback;
// the relay clock runs 60× so a wake-up's coalescing window and a schedule's first minute pass quickly.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_CHANNEL } from '@relay/bus';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startRelay, type Relay } from '../harness/relay.ts';
import { allowCard, finish, scriptSession } from '../harness/script-turns.ts';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.ts';
import { until } from '../harness/until.ts';

const SERVER = 2;
const PRODUCER = 4;

let relay: Relay;
let agent: Client;
let callerId: string;
const receiver = new OtlpReceiver();

/** What a wait for spans shows when they never come. */
const seen = { timeoutMs: 90_000, detail: () => `${receiver.spans.length} spans seen` };

const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

/** Every span reachable from `start`: down parent edges, and from a span to each span that links to it. */
function walk(start: ReceivedSpan): ReceivedSpan[] {
  const children = new Map<string, ReceivedSpan[]>();
  const add = (key: string, span: ReceivedSpan) => children.set(key, [...(children.get(key) ?? []), span]);
  for (const span of receiver.spans) {
    if (span.parentSpanId) add(`${span.traceId}/${span.parentSpanId}`, span);
    for (const link of span.links) add(`${link.traceId}/${link.spanId}`, span);
  }
  const seen = new Map<string, ReceivedSpan>();
  const queue = [start];
  while (queue.length > 0) {
    const span = queue.shift()!;
    const key = `${span.traceId}/${span.spanId}`;
    if (seen.has(key)) continue;
    seen.set(key, span);
    queue.push(...(children.get(key) ?? []));
  }
  return [...seen.values()];
}

/** The span with no parent in `span`'s trace (the first span of the action). */
function rootOf(span: ReceivedSpan): ReceivedSpan | undefined {
  const byId = new Map(receiver.trace(span.traceId).map((s) => [s.spanId, s]));
  let current = span;
  while (current.parentSpanId) {
    const parent = byId.get(current.parentSpanId);
    if (!parent) return undefined;
    current = parent;
  }
  return current;
}

/** The session service's JSON log lines about one turn. */
function turnLogLines(turnId: string): { msg: string; trace_id?: string }[] {
  return relay
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(turnId))
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line);
        return parsed.turnId === turnId ? [parsed] : [];
      } catch {
        return [];
      }
    });
}

const turnOf = (sessionId: string) => (span: ReceivedSpan) =>
  span.service === 'relay-session' && span.name === 'turn' && span.attributes['relay.session.id'] === sessionId;

beforeAll(async () => {
  await receiver.start();
  relay = await startRelay({ name: 'one-trace', otlpEndpoint: receiver.endpoint, env: { RELAY_CLOCK: `${new Date().toISOString()}@60x`, LOG_LEVEL: 'info' } });
  const caller = await relay.createExternalSession('Caller');
  callerId = caller.id;
  agent = await relay.connectAgent(caller.token);
});

afterAll(async () => {
  await agent?.close();
  await relay?.stop();
  await receiver.stop();
});

describe('one user action, one trace', () => {
  it('MCP send → the script turn → the wake-up → the watcher’s turn, walked from the first span by parent and link edges', async () => {
    const worker = await scriptSession(relay, 'Watched worker', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const watcher = await scriptSession(relay, 'Watcher', tool({ action: 'subscribe', sessions: [worker.id] }));
    await allowCard(relay, watcher.id);
    await finish(relay, watcher.id, watcher.messageId);

    const sent = await agent.callTool({
      name: 'relay_tool',
      arguments: { action: 'send', relay: 'this', session: worker.id, text: 'reply done again', wait_seconds: 0 },
    });
    expect(JSON.parse((sent.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true });
    const sendSpan = await until(
      'the gateway span of the send',
      () => receiver.spans.find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'send'),
      seen,
    );
    const first = await until('the first span of the send', () => rootOf(sendSpan), seen);
    expect(first.service).toBe('relay-gateway');
    expect(first.kind).toBe(SERVER);

    // Each turn of the watcher ran in a trace of its own: the one the wake-up started is the last to come.
    const reached = await until(
      'the watcher’s turn, reachable from the send',
      () => {
        const spans = walk(first);
        const watcherTurn = spans.find(turnOf(watcher.id));
        return watcherTurn ? spans : undefined;
      },
      seen,
    );
    // The turn's start is announced in the send's own trace (the runner claims it outside any trace).
    const started = await until(
      'the turn_started publish span in the send’s trace',
      () =>
        receiver
          .trace(first.traceId)
          .find((s) => s.service === 'relay-session' && s.kind === PRODUCER && s.attributes['relay.bus.subject'] === 'relay.session.v1.turn_started'),
      seen,
    );
    expect(started.traceId).toBe(first.traceId);
    const workerTurn = reached.find(turnOf(worker.id));
    expect(workerTurn, 'the worker’s turn').toBeDefined();
    expect(workerTurn!.attributes['relay.turn.id']).toEqual(expect.any(String));
    expect(workerTurn!.links.length, 'the turn links to the call that queued it').toBe(1);
    const wakeUp = reached.find((s) => s.service === 'relay-subscription' && s.name === 'wake-up' && s.attributes['relay.session.id'] === watcher.id);
    expect(wakeUp, 'the wake-up the worker’s turn caused').toBeDefined();
    expect(wakeUp!.links.length).toBeGreaterThanOrEqual(1);
    // The wake-up's command, published and consumed, in the wake-up's trace; the watcher's turn links to that consumer.
    const consumed = reached.find(
      (s) => s.service === 'relay-session' && s.attributes['relay.bus.subject'] === 'relay.subscription.v1.cmd.deliver_wakeup' && s.traceId === wakeUp!.traceId,
    );
    expect(consumed, 'the session service consuming the wake-up').toBeDefined();
    const watcherTurn = reached.find(turnOf(watcher.id))!;
    expect(watcherTurn.links.map((link) => link.traceId)).toContain(wakeUp!.traceId);
    // The turns' log lines carry their traces.
    for (const turn of [workerTurn!, watcherTurn]) {
      const lines = await until(
        'the turn’s log lines',
        () => {
          const found = turnLogLines(String(turn.attributes['relay.turn.id']));
          return found.some((line) => line.msg === 'turn ended') ? found : undefined;
        },
        seen,
      );
      expect(lines.map((line) => [line.msg, line.trace_id])).toEqual(
        expect.arrayContaining([
          ['turn started', turn.traceId],
          ['turn ended', turn.traceId],
        ]),
      );
    }
    // Each hop that runs later starts a trace of its own, so no trace grows with the chain.
    expect(new Set([first.traceId, workerTurn!.traceId, wakeUp!.traceId, watcherTurn.traceId]).size).toBe(4);
  });

  it('a schedule’s firing links to the call that set it', async () => {
    await scriptSession(relay, 'Ticker', tool({ action: 'schedule', title: 'Tick', text: 'reply tick', every_minutes: 1 }));
    const firing = await until(
      'a schedule firing span',
      () => receiver.spans.find((s) => s.service === 'relay-scheduler' && s.name === 'schedule firing'),
      seen,
    );
    expect(firing.attributes['relay.schedule.id']).toEqual(expect.any(String));
    expect(firing.links).toHaveLength(1);
    const setter = await until(
      'the relay_tool schedule call in the trace the firing links to',
      () => receiver.trace(firing.links[0]!.traceId).find((s) => s.service === 'relay-gateway' && s.attributes['relay.tool.action'] === 'schedule'),
      seen,
    );
    // The call that set it ran in the script turn's trace; the firing's queued prompt is reached from it by links.
    expect(walk(setter).some((s) => s.spanId === firing.spanId)).toBe(true);
  });

  // Issue 39, item 7: a computed all_idle links to the event that made the sessions idle.
  it('an all_idle links to the turn whose end made the watched sessions idle, and its wake-up links there', async () => {
    const worker = await scriptSession(relay, 'Idle worker', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const watcher = await scriptSession(relay, 'Idle watcher', tool({ action: 'subscribe', sessions: [worker.id], events: ['all_idle'] }));
    await allowCard(relay, watcher.id);
    await finish(relay, watcher.id, watcher.messageId);
    const said = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply idle again' });
    expect(said.status, JSON.stringify(said.body)).toBe(201);
    await finish(relay, worker.id, said.body.message_id);

    const db = new pg.Client({ connectionString: relay.databaseUrls.subscription });
    await db.connect();
    let traceParent: string | null;
    try {
      traceParent = await until(
        'the all_idle stored for the watcher',
        async () => {
          const { rows } = await db.query<{ trace_parent: string | null }>(
            "SELECT trace_parent FROM watcher_events WHERE watcher_session_id = $1 AND source_event_id LIKE 'all_idle:%'",
            [watcher.id],
          );
          return rows[0] ? rows[0].trace_parent : undefined;
        },
        seen,
      );
    } finally {
      await db.end();
    }
    expect(traceParent, 'the all_idle carries the trace of the event that made it').toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = traceParent!.split('-')[1]!;
    // That trace is the worker's turn's: its turn_ended was published and consumed in it.
    await until('the worker’s turn in that trace', () => receiver.trace(traceId).find(turnOf(worker.id)), seen);
    await until(
      'the wake-up of the all_idle, linked to that trace',
      () =>
        receiver.spans.find(
          (s) =>
            s.service === 'relay-subscription' &&
            s.name === 'wake-up' &&
            s.attributes['relay.session.id'] === watcher.id &&
            s.links.some((link) => link.traceId === traceId),
        ),
      seen,
    );
  });

  // Issue 39, item 7: the loop guard's count is part of the firing, not a root of its own.
  it('a firing into another session asks its loop guard (CountAgentPrompt) inside the firing’s trace', async () => {
    const target = await scriptSession(relay, 'Guarded target', 'reply ready');
    await finish(relay, target.id, target.messageId);
    const setter = await scriptSession(
      relay,
      'Guarded setter',
      tool({ action: 'schedule', session: target.id, title: 'Poke', text: 'reply poke', every_minutes: 1 }),
    );
    await finish(relay, setter.id, setter.messageId);
    const guard = await until(
      'the scheduler asking the loop guard',
      () => receiver.spans.find((s) => s.service === 'relay-scheduler' && s.name.includes('CountAgentPrompt')),
      seen,
    );
    const root = await until('the root of the loop guard’s span', () => rootOf(guard), seen);
    expect(root).toMatchObject({ service: 'relay-scheduler', name: 'schedule firing' });
    expect(root.links, 'the firing links to the call that set the schedule').toHaveLength(1);
  });
});

/**
 * Wakes every service's outbox relay (a NOTIFY on its channel, as a commit sends) and runs `more`, then waits until
 * each service's database has committed a transaction beyond the NOTIFY's own: its loops ran.
 */
async function loopsRun(more: () => Promise<void>): Promise<void> {
  const urls = Object.values(relay.databaseUrls);
  const stats = new pg.Client({ connectionString: Object.assign(new URL(urls[0]!), { pathname: '/postgres' }).href });
  await stats.connect();
  try {
    const commits = async (): Promise<Map<string, number>> => {
      const { rows } = await stats.query<{ datname: string; xact_commit: string }>('SELECT datname, xact_commit FROM pg_stat_database');
      return new Map(rows.map((row) => [row.datname, Number(row.xact_commit)]));
    };
    const before = await commits();
    for (const url of urls) {
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      await db.query(`NOTIFY ${OUTBOX_CHANNEL}`);
      await db.end();
    }
    await more();
    const names = urls.map((url) => new URL(url).pathname.slice(1));
    await until(
      'a round of every loop',
      async () => {
        const now = await commits();
        return names.every((name) => now.get(name)! >= before.get(name)! + 2) ? true : undefined;
      },
      { detail: () => names.join(', ') },
    );
  } finally {
    await stats.end();
  }
}

describe('the background loops at rest', () => {
  it('no trace gains spans while the relay is idle, and no span gathers a loop’s rounds as children', async () => {
    // Archiving every session ends the schedule above, so nothing is left to do, and the archives reach the watcher's
    // subscription above, which nudges the subscription planner from inside their consumers' spans (where its rounds
    // used to be recorded, round after round, for good).
    const sessions = (await relay.api('GET', '/api/v1/sessions')).body.sessions as { id: string }[];
    for (const session of sessions.filter((s) => s.id !== callerId)) await relay.api('POST', `/api/v1/sessions/${session.id}/archive`);
    // A console page stays open through the rest: its stream reads the owners once a second, for hours.
    const page = new AbortController();
    const stream = await fetch(`${relay.gatewayUrl}/api/v1/events`, { headers: { authorization: `Bearer ${relay.userToken}` }, signal: page.signal });
    expect(stream.status).toBe(200);
    // What the archives set off is over: every outbox published, every consumer caught up. Only traces whose root
    // had ended by then count, and only spans that start in the rest: one exported late is not one recorded late.
    await relay.settled();
    const restFrom = Date.now();
    const ended = new Set(receiver.spans.filter((span) => !span.parentSpanId).map((span) => span.traceId));

    // The rest, with every loop made to run rather than waited for: each service's outbox relay is woken (as a
    // commit's NOTIFY wakes it) and the relay clock jumps an hour (the firing loop, digests and quiet hours run);
    // the sign that they ran is each database's transactions beyond the wake-up's own.
    await loopsRun(() => relay.jumpTo(new Date(relay.now().getTime() + 3_600_000)));
    page.abort();
    await agent.close();
    // Stopping the services flushes their exporters: every span recorded so far is in the receiver after this.
    await Promise.all(Object.values(relay.services).map((service) => service.stop()));

    const grew = receiver.spans
      .filter((span) => ended.has(span.traceId) && span.startMs >= restFrom)
      .map((span) => `${span.service}:${span.name} in the trace of ${receiver.trace(span.traceId).find((s) => !s.parentSpanId)?.name ?? '?'}`);
    expect([...new Set(grew)]).toEqual([]);

    // Across the whole run no span has more than a few dozen children (a loop's rounds would add one per round).
    const children = new Map<string, number>();
    for (const span of receiver.spans)
      if (span.parentSpanId) children.set(`${span.traceId}/${span.parentSpanId}`, (children.get(`${span.traceId}/${span.parentSpanId}`) ?? 0) + 1);
    const widest = Math.max(...children.values());
    expect(widest).toBeLessThan(40);
  });
});
