// The fair shares of the gateway's work (domain/fair-shares.ts): the order calls get their turn in, the bounds, a
// user's smaller share while another is present, the refusal, and nothing held once calls are over or gone. No clock:
// turns are given as places are given back, and presence is counted in calls let in.
import { describe, expect, it } from 'vitest';
import { FairShares, RECENT_CALLS, type Entry, type Release } from '../src/domain/fair-shares.ts';

/** Enters a call and records, under `name`, when its turn comes. */
function enter(shares: FairShares, started: string[], name: string, user: string, lane = 's1', signal?: AbortSignal) {
  const entry = shares.enter(user, lane, signal);
  const turn = entry.refused
    ? Promise.resolve(undefined)
    : entry.turn.then((release) => {
        if (release !== undefined) started.push(name);
        return release;
      });
  return { entry, turn };
}

/** Lets pending turns settle (promise callbacks only; nothing is timed). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

async function releaseOf(call: { turn: Promise<Release | undefined> }): Promise<Release> {
  const release = await call.turn;
  if (release === undefined) throw new Error('the call got no turn');
  return release;
}

describe('FairShares', () => {
  it("lets a user's calls work up to the bound, and the next waits its turn until a place is given back", async () => {
    const shares = new FairShares({ perUser: 2, perUserShared: 2, queuedPerUser: 5, total: 10 });
    const started: string[] = [];
    enter(shares, started, 'a1', 'alice');
    const a2 = enter(shares, started, 'a2', 'alice');
    enter(shares, started, 'a3', 'alice');
    await settled();
    expect(started).toEqual(['a1', 'a2']);
    expect(shares.loadOf('alice')).toEqual({ working: 2, waiting: 1 });
    (await releaseOf(a2))();
    await settled();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    expect(shares.loadOf('alice')).toEqual({ working: 2, waiting: 0 });
  });

  it("gives a freed place to the users in turn: another user's call does not wait behind a burst", async () => {
    const shares = new FairShares({ perUser: 1, perUserShared: 1, queuedPerUser: 10, total: 1 });
    const started: string[] = [];
    const calls = new Map(
      (['a1', 'a2', 'a3', 'a4', 'b1', 'b2'] as const).map((name) => [name, enter(shares, started, name, name.startsWith('a') ? 'alice' : 'bob')]),
    );
    for (const name of ['a1', 'a2', 'b1', 'a3', 'b2', 'a4'] as const) {
      await settled();
      expect(started.at(-1)).toBe(name);
      (await releaseOf(calls.get(name)!))();
    }
    expect(shares.users).toBe(0);
  });

  it("gives a user's freed places to their sessions in turn", async () => {
    const shares = new FairShares({ perUser: 1, perUserShared: 1, queuedPerUser: 10, total: 10 });
    const started: string[] = [];
    const first = enter(shares, started, 'first', 'alice', 's1');
    const names = ['s1-a', 's1-b', 's1-c', 's2-a', 's3-a'];
    const calls = new Map(names.map((name) => [name, enter(shares, started, name, 'alice', name.slice(0, 2))]));
    (await releaseOf(first))();
    for (const name of ['s1-a', 's2-a', 's3-a', 's1-b', 's1-c']) {
      await settled();
      expect(started.at(-1)).toBe(name);
      (await releaseOf(calls.get(name)!))();
    }
    expect(shares.users).toBe(0);
  });

  it('refuses at once a call past what a user may have at work and waiting, and lets other users in', async () => {
    const shares = new FairShares({ perUser: 2, perUserShared: 2, queuedPerUser: 1, total: 10 });
    const started: string[] = [];
    for (const name of ['a1', 'a2', 'a3']) enter(shares, started, name, 'alice');
    const refused: Entry = enter(shares, started, 'a4', 'alice').entry;
    expect(refused).toEqual({ refused: true });
    expect(shares.loadOf('alice')).toEqual({ working: 2, waiting: 1 });
    const bob = enter(shares, started, 'b1', 'bob');
    await settled();
    expect(bob.entry.refused).toBe(false);
    expect(started).toEqual(['a1', 'a2', 'b1']);
  });

  it('holds back every user once all places of the gateway are at work', async () => {
    const shares = new FairShares({ perUser: 2, perUserShared: 2, queuedPerUser: 5, total: 2 });
    const started: string[] = [];
    const a1 = enter(shares, started, 'a1', 'alice');
    enter(shares, started, 'a2', 'alice');
    enter(shares, started, 'b1', 'bob');
    await settled();
    expect(started).toEqual(['a1', 'a2']);
    (await releaseOf(a1))();
    await settled();
    expect(started).toEqual(['a1', 'a2', 'b1']);
  });

  it('takes a waiting call whose caller went away out of the line, and holds nothing once all are over', async () => {
    const shares = new FairShares({ perUser: 1, perUserShared: 1, queuedPerUser: 2, total: 10 });
    const started: string[] = [];
    const a1 = enter(shares, started, 'a1', 'alice');
    const gone = new AbortController();
    const a2 = enter(shares, started, 'a2', 'alice', 's2', gone.signal);
    const a3 = enter(shares, started, 'a3', 'alice');
    gone.abort();
    expect(await a2.turn).toBeUndefined();
    expect(shares.loadOf('alice')).toEqual({ working: 1, waiting: 1 });
    (await releaseOf(a1))();
    await settled();
    expect(started).toEqual(['a1', 'a3']);
    const release = await releaseOf(a3);
    release();
    release();
    expect(shares.users).toBe(0);
    expect(shares.loadOf('alice')).toEqual({ working: 0, waiting: 0 });
  });

  it('lets a call whose caller is already gone in without a turn and without holding anything', async () => {
    const shares = new FairShares({ perUser: 1, perUserShared: 1, queuedPerUser: 0, total: 1 });
    const entry = shares.enter('alice', 's1', AbortSignal.abort());
    expect(entry.refused).toBe(false);
    if (!entry.refused) expect(await entry.turn).toBeUndefined();
    expect(shares.users).toBe(0);
  });

  it("keeps a busy user to their shared bound once another user is present: the burst's freed places are not refilled until it is below it", async () => {
    const shares = new FairShares({ perUser: 4, perUserShared: 1, queuedPerUser: 10, total: 16 });
    const started: string[] = [];
    const alice = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((name) => enter(shares, started, name, 'alice'));
    await settled();
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4']);
    const bob = enter(shares, started, 'b1', 'bob');
    await settled();
    expect(started.at(-1)).toBe('b1');
    for (const call of alice.slice(0, 3)) (await releaseOf(call))();
    await settled();
    // Three of Alice's places given back, and still one of hers at work: her waiting calls wait.
    expect(started).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(shares.loadOf('alice')).toEqual({ working: 1, waiting: 2 });
    (await releaseOf(alice[3]!))();
    await settled();
    expect(started.at(-1)).toBe('a5');
    expect(shares.loadOf('alice')).toEqual({ working: 1, waiting: 1 });
    // Bob between his calls is still present: Alice's next call waits for her one place, and Bob's next goes at once.
    (await releaseOf(bob))();
    await settled();
    expect(shares.loadOf('alice')).toEqual({ working: 1, waiting: 1 });
    enter(shares, started, 'b2', 'bob');
    await settled();
    expect(started.at(-1)).toBe('b2');
  });

  it(`gives a user their whole bound again once ${RECENT_CALLS} calls were let in since another user's last`, async () => {
    const shares = new FairShares({ perUser: 4, perUserShared: 1, queuedPerUser: 10, total: 16 });
    const started: string[] = [];
    (await releaseOf(enter(shares, started, 'b1', 'bob')))();
    // Alice's calls one at a time while Bob is among the latest calls let in, the next always waiting...
    let current = enter(shares, started, 'a0', 'alice');
    for (let i = 1; i < RECENT_CALLS; i++) {
      const next = enter(shares, started, `a${i}`, 'alice');
      await settled();
      expect(shares.loadOf('alice')).toEqual({ working: 1, waiting: 1 });
      (await releaseOf(current))();
      current = next;
    }
    // ...until the last of them pushed Bob's out: then four at once.
    const more = ['x1', 'x2', 'x3', 'x4'].map((name) => enter(shares, started, name, 'alice'));
    await settled();
    expect(shares.loadOf('alice')).toEqual({ working: 4, waiting: 1 });
    for (const call of [current, ...more]) void call.turn.then((release) => release?.());
  });

  it('gives a user alone their whole bound, and the shared one is never more than it', async () => {
    const shares = new FairShares({ perUser: 2, perUserShared: 5, queuedPerUser: 10, total: 16 });
    const started: string[] = [];
    for (const name of ['a1', 'a2', 'a3']) enter(shares, started, name, 'alice');
    for (const name of ['b1', 'b2', 'b3']) enter(shares, started, name, 'bob');
    await settled();
    expect(started).toEqual(['a1', 'a2', 'b1', 'b2']);
  });
});
