import { describe, expect, it } from 'vitest';
import { projectSessionEvent } from '../src/domain/project-session-event.ts';
import type { SessionActivity, SessionEvent } from '../src/domain/session-activity.ts';

const created = (eventId: string, occurredAt: string, title = 'Refactor'): SessionEvent => ({
  type: 'session_created',
  eventId,
  occurredAt: new Date(occurredAt),
  session: { id: 's1', userId: 'u1', title, state: 'idle' },
});

const row = (lastEventId: string, lastEventAt: string): SessionActivity => ({
  sessionId: 's1',
  userId: 'u1',
  title: 'Older title',
  state: 'running_turn',
  lastEventAt: new Date(lastEventAt),
  lastEventId,
});

describe('projectSessionEvent', () => {
  it('starts the row of a session it has not seen', () => {
    expect(projectSessionEvent(undefined, created('e1', '2026-11-30T10:00:00Z'))).toEqual({
      sessionId: 's1',
      userId: 'u1',
      title: 'Refactor',
      state: 'idle',
      lastEventAt: new Date('2026-11-30T10:00:00Z'),
      lastEventId: 'e1',
    });
  });

  it('replaces the row with a later event', () => {
    const next = projectSessionEvent(row('e0', '2026-11-30T09:00:00Z'), created('e1', '2026-11-30T10:00:00Z'));
    expect(next).toMatchObject({ title: 'Refactor', state: 'idle', lastEventId: 'e1' });
  });

  it('lets an event of the same instant win, so a redelivery reads the same', () => {
    const next = projectSessionEvent(row('e1', '2026-11-30T10:00:00Z'), created('e1', '2026-11-30T10:00:00Z'));
    expect(next).toMatchObject({ lastEventId: 'e1', title: 'Refactor' });
  });

  it('ignores an event older than the row (delivered late)', () => {
    expect(projectSessionEvent(row('e2', '2026-11-30T11:00:00Z'), created('e1', '2026-11-30T10:00:00Z'))).toBeUndefined();
  });
});
