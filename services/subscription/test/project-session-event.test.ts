import { describe, expect, it } from 'vitest';
import { projectSessionEvent } from '../src/domain/project-session-event.ts';
import { NO_RUNS, type SessionActivity, type SessionEvent } from '../src/domain/session-activity.ts';

const at = (iso: string) => new Date(iso);
const common = (eventId: string, occurredAt: string) => ({ eventId, occurredAt: at(occurredAt), sessionId: 's1', userId: 'u1' });
const created = (eventId: string, occurredAt: string, title = 'Refactor'): SessionEvent => ({
  ...common(eventId, occurredAt),
  type: 'session_created',
  title,
  state: 'idle',
});

const row = (lastEventId: string, lastEventAt: string): SessionActivity => ({
  sessionId: 's1',
  userId: 'u1',
  title: 'Older title',
  state: 'running_turn',
  lastEventAt: at(lastEventAt),
  lastEventId,
  runs: NO_RUNS,
  archivedAt: null,
});

/** The row after applying `events` in order from nothing. */
function replay(events: SessionEvent[]): SessionActivity | undefined {
  return events.reduce<SessionActivity | undefined>((current, event) => projectSessionEvent(current, event) ?? current, undefined);
}

describe('projectSessionEvent: session_created', () => {
  it('starts the row of a session it has not seen', () => {
    expect(projectSessionEvent(undefined, created('e1', '2026-11-30T10:00:00Z'))).toEqual({
      sessionId: 's1',
      userId: 'u1',
      title: 'Refactor',
      state: 'idle',
      lastEventAt: at('2026-11-30T10:00:00Z'),
      lastEventId: 'e1',
      runs: NO_RUNS,
      archivedAt: null,
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

  it('fills the title of a row a turn event started, even when it arrives after it', () => {
    const started: SessionEvent = { ...common('e2', '2026-11-30T10:01:00Z'), type: 'turn_started', turnId: 't1' };
    expect(replay([started, created('e1', '2026-11-30T10:00:00Z')])).toMatchObject({ title: 'Refactor', state: 'running_turn' });
  });
});

describe('projectSessionEvent: what runs', () => {
  const turnStarted = (id: string, when: string, turnId = 't1'): SessionEvent => ({ ...common(id, when), type: 'turn_started', turnId });
  const turnEnded = (id: string, when: string, turnId = 't1'): SessionEvent => ({ ...common(id, when), type: 'turn_ended', turnId });
  const taskStarted = (id: string, when: string, taskId = 'task_1'): SessionEvent => ({
    ...common(id, when),
    type: 'task_started',
    task: { id: taskId, description: 'npm test' },
  });
  const taskEnded = (id: string, when: string, taskId = 'task_1'): SessionEvent => ({ ...common(id, when), type: 'task_ended', taskId });

  it('a turn runs from its start to its end, and the session went idle at the end', () => {
    const running = replay([turnStarted('e1', '2026-11-30T10:00:00Z')]);
    expect(running).toMatchObject({
      state: 'running_turn',
      runs: { turn: { id: 't1', startedAt: at('2026-11-30T10:00:00Z') }, turnActivityAt: at('2026-11-30T10:00:00Z') },
    });
    const ended = replay([turnStarted('e1', '2026-11-30T10:00:00Z'), turnEnded('e2', '2026-11-30T10:20:00Z')]);
    expect(ended).toMatchObject({ state: 'idle', runs: { turn: null, lastEndedAt: at('2026-11-30T10:20:00Z') } });
  });

  it('a task outlives its turn: background_only until it ends', () => {
    const rowAfter = replay([turnStarted('e1', '2026-11-30T10:00:00Z'), taskStarted('e2', '2026-11-30T10:01:00Z'), turnEnded('e3', '2026-11-30T10:02:00Z')]);
    expect(rowAfter).toMatchObject({
      state: 'background_only',
      runs: { tasks: [{ id: 'task_1', description: 'npm test', startedAt: at('2026-11-30T10:01:00Z'), lastOutputAt: null }] },
    });
    expect(replay([taskStarted('e2', '2026-11-30T10:01:00Z'), taskEnded('e4', '2026-11-30T10:30:00Z')])).toMatchObject({
      state: 'idle',
      runs: { tasks: [], lastEndedAt: at('2026-11-30T10:30:00Z') },
    });
  });

  it('a question, a finished sub-agent or a started task is a sign of life of the running turn', () => {
    const question: SessionEvent = { ...common('e2', '2026-11-30T10:10:00Z'), type: 'turn_activity' };
    expect(replay([turnStarted('e1', '2026-11-30T10:00:00Z'), question])?.runs.turnActivityAt).toEqual(at('2026-11-30T10:10:00Z'));
  });

  it('holds when events come late: a start after its end, a task start after its end', () => {
    expect(replay([turnEnded('e2', '2026-11-30T10:20:00Z'), turnStarted('e1', '2026-11-30T10:00:00Z')])).toMatchObject({ state: 'idle', runs: { turn: null } });
    expect(replay([taskEnded('e2', '2026-11-30T10:20:00Z'), taskStarted('e1', '2026-11-30T10:00:00Z')])).toMatchObject({ state: 'idle', runs: { tasks: [] } });
  });

  it("a task's output time moves its silence later, never earlier, and only for a task that runs", () => {
    const output = (id: string, when: string, wrote: string, taskId = 'task_1'): SessionEvent => ({
      ...common(id, when),
      type: 'task_output',
      taskId,
      lastOutputAt: at(wrote),
    });
    const after = replay([
      taskStarted('e1', '2026-11-30T10:00:00Z'),
      output('e2', '2026-11-30T10:05:00Z', '2026-11-30T10:05:00Z'),
      output('e3', '2026-11-30T10:02:00Z', '2026-11-30T10:02:00Z'),
    ]);
    expect(after?.runs.tasks[0]?.lastOutputAt).toEqual(at('2026-11-30T10:05:00Z'));
    expect(
      replay([taskStarted('e1', '2026-11-30T10:00:00Z'), output('e2', '2026-11-30T10:05:00Z', '2026-11-30T10:05:00Z', 'task_9')])?.runs.tasks[0]?.lastOutputAt,
    ).toBeNull();
  });

  it('an archive keeps the runs and notes when', () => {
    const archived: SessionEvent = { ...common('e9', '2026-11-30T11:00:00Z'), type: 'archived' };
    expect(replay([created('e1', '2026-11-30T10:00:00Z'), archived])).toMatchObject({ archivedAt: at('2026-11-30T11:00:00Z'), title: 'Refactor' });
  });
});
