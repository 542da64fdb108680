// The session list's watch marks from the user's active subscriptions: "watching N" counts the distinct sessions a
// conversation watches (or "all"), and a session is watched by a local subscription listing it or covering all of
// them, never by its own conversation's, nor when excluded, nor by one watching a paired relay's sessions.
import { describe, expect, it } from 'vitest';
import type { Subscription } from '@relay/proto/relay/subscription/v1/subscription_service';
import { watchMarks } from '../src/domain/watch-marks.ts';

function subscription(fields: Partial<Subscription> & Pick<Subscription, 'id' | 'watcherSessionId'>): Subscription {
  return {
    scope: 'sessions',
    sessions: [],
    exclude: [],
    events: [],
    once: false,
    match: '',
    stalledMinutes: 15,
    heartbeatMinutes: 0,
    digestMinutes: 0,
    quietHours: undefined,
    createdAt: undefined,
    endedAt: undefined,
    endReason: '',
    heldCount: 0,
    nextDeliveryAt: undefined,
    relay: '',
    ...fields,
  };
}

const listing = (...ids: string[]) => ids.map((id) => ({ id, title: id }));

describe('watchMarks', () => {
  it('counts the distinct sessions a conversation watches across its subscriptions, and marks each of them watched', () => {
    const marks = watchMarks([
      subscription({ id: 'sub-1', watcherSessionId: 'lead', sessions: listing('a', 'b') }),
      subscription({ id: 'sub-2', watcherSessionId: 'lead', sessions: listing('b', 'c') }),
    ]);
    expect(marks('lead')).toEqual({ watching: 3 });
    expect(marks('a')).toEqual({ watched: true });
    expect(marks('c')).toEqual({ watched: true });
    expect(marks('d')).toEqual({});
  });

  it('an "all" subscription watches every session but its own conversation and the excluded ones', () => {
    const marks = watchMarks([subscription({ id: 'sub-1', watcherSessionId: 'lead', scope: 'all', sessions: listing('all'), exclude: ['quiet'] })]);
    expect(marks('lead')).toEqual({ watching: 'all' });
    expect(marks('any')).toEqual({ watched: true });
    expect(marks('quiet')).toEqual({});
  });

  it("a paired relay's sessions count for the watcher and mark none here, even one with the same id", () => {
    const marks = watchMarks([
      subscription({ id: 'sub-1', watcherSessionId: 'lead', relay: 'build-box', sessions: listing('a') }),
      subscription({ id: 'sub-2', watcherSessionId: 'lead', sessions: listing('a') }),
      subscription({ id: 'sub-3', watcherSessionId: 'other', relay: 'build-box', scope: 'all', sessions: listing('all') }),
    ]);
    expect(marks('lead')).toEqual({ watching: 2 });
    expect(marks('a')).toEqual({ watched: true });
    expect(marks('other')).toEqual({ watching: 'all' });
    expect(marks('b')).toEqual({});
  });

  it('two conversations watching each other both watch and are watched', () => {
    const marks = watchMarks([
      subscription({ id: 'sub-1', watcherSessionId: 'x', sessions: listing('y') }),
      subscription({ id: 'sub-2', watcherSessionId: 'y', sessions: listing('x') }),
    ]);
    expect(marks('x')).toEqual({ watching: 1, watched: true });
    expect(marks('y')).toEqual({ watching: 1, watched: true });
  });
});
