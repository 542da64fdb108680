import { describe, expect, it } from 'vitest';
import { MessageDelivery, SessionOrigin, SessionState, TurnStatus, type Session } from '@relay/proto/relay/session/v1/session';
import type { SessionRead } from '../src/domain/answers.ts';
import { sessionReadView, sessionView } from '../src/app/views/session-view.ts';

const session: Session = {
  id: 's1',
  userId: 'u1',
  title: 'Review: server/',
  provider: 'script',
  model: 'script-1',
  state: SessionState.SESSION_STATE_RUNNING_TURN,
  cwd: '/home/dev/shop',
  archived: false,
  origin: SessionOrigin.SESSION_ORIGIN_HOSTED,
  messageCount: 2,
  createdAt: undefined,
  lastActivityAt: new Date('2026-10-18T09:12:00.000Z'),
  effort: '',
  mode: 'agent',
  repo: '',
  branch: '',
  // A session in no group: the session service sends an empty one.
  group: { id: '', name: '', role: '' },
  startedBySessionId: '',
  startedByTitle: '',
  mayCreateSessions: false,
  autoCompactWindow: 'auto',
  thinkingEnabled: true,
  thinkingDisplay: '',
  tasks: [],
  lastTurn: undefined,
};

describe('sessionView', () => {
  it('shows the plain fields of a session no agent started', () => {
    expect(sessionView(session)).toEqual({
      id: 's1',
      title: 'Review: server/',
      provider: 'script',
      model: 'script-1',
      state: 'running_turn',
      cwd: '/home/dev/shop',
      lastActivityAt: '2026-10-18T09:12:00.000Z',
      messageCount: 2,
      tasks: [],
    });
  });

  it('adds group, mayCreateSessions, startedBy ("via agent"), repo/branch and archived when they say something', () => {
    const view = sessionView({
      ...session,
      group: { id: 'grp_1', name: 'Release 2.4', role: 'head' },
      mayCreateSessions: true,
      startedBySessionId: 's0',
      startedByTitle: 'Planner',
      repo: 'org/repo',
      branch: 'main',
      archived: true,
    });
    expect(view).toMatchObject({
      group: { id: 'grp_1', name: 'Release 2.4', role: 'head' },
      mayCreateSessions: true,
      startedBy: { id: 's0', title: 'Planner' },
      repo: 'org/repo',
      branch: 'main',
      archived: true,
    });
  });
});

describe('sessionReadView', () => {
  const read: SessionRead = {
    session: { ...session, group: { id: 'grp_1', name: 'Release 2.4', role: 'member' } },
    messages: [
      {
        id: 'm1',
        role: 'agent',
        text: 'Check the deploy.',
        provenance: { originRelay: 'desk', originSessionId: 's0', originSessionTitle: 'Planner', model: 'script-1', hops: 1, viaRelays: ['desk'] },
        createdAt: new Date('2026-10-18T09:00:00.000Z'),
        model: '',
        delivery: MessageDelivery.MESSAGE_DELIVERY_QUEUED,
      },
      {
        id: 'm2',
        role: 'assistant',
        text: 'Green.',
        provenance: undefined,
        createdAt: new Date('2026-10-18T09:01:00.000Z'),
        model: 'script-1',
        delivery: MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED,
      },
    ],
    inFlight: '',
    pendingQuestions: [{ id: 'card_1', kind: 'ask_user', question: 'Merge?', options: ['Yes', 'No'] }],
    groupMembers: Array.from({ length: 60 }, (_, i) => ({
      id: `s${i + 2}`,
      title: `Member ${i}`,
      role: 'member',
      state: SessionState.SESSION_STATE_IDLE,
      archived: i === 0,
    })),

    neverAskedAbout: true,
    askMark: 0,
  };

  it('shows state, messages with provenance and model, inFlight, pendingQuestions with kind, and at most 50 group members', () => {
    const view = sessionReadView(read);
    expect(view.state).toBe('running_turn');
    expect(view.inFlight).toBeNull();
    expect(view.messages).toEqual([
      {
        id: 'm1',
        role: 'agent',
        text: 'Check the deploy.',
        createdAt: '2026-10-18T09:00:00.000Z',
        provenance: { originRelay: 'desk', originSessionId: 's0', originSessionTitle: 'Planner', model: 'script-1', hops: 1, viaRelays: ['desk'] },
        delivery: 'queued',
      },
      { id: 'm2', role: 'assistant', text: 'Green.', createdAt: '2026-10-18T09:01:00.000Z', model: 'script-1' },
    ]);
    expect(view.pendingQuestions).toEqual([{ id: 'card_1', kind: 'ask_user', question: 'Merge?', options: ['Yes', 'No'] }]);
    expect(view.group?.members).toHaveLength(50);
    expect(view.group?.members[0]).toEqual({ id: 's2', title: 'Member 0', role: 'member', state: 'idle', archived: true });
    expect(view.group?.members[1]).toEqual({ id: 's3', title: 'Member 1', role: 'member', state: 'idle' });
  });

  it("gives read_session the session's status from how its last turn ended, and list_sessions' view no status", () => {
    const resting = { ...session, state: SessionState.SESSION_STATE_IDLE };
    const failed = { ...resting, lastTurn: { status: TurnStatus.TURN_STATUS_ERROR, error: 'the build broke', endedAt: new Date('2026-10-18T09:02:00.000Z') } };
    const stopped = { ...resting, lastTurn: { status: TurnStatus.TURN_STATUS_STOPPED, error: '', endedAt: new Date('2026-10-18T09:02:00.000Z') } };
    expect(sessionReadView({ ...read, session: failed, pendingQuestions: [] }).status).toEqual({
      name: 'failed',
      words: 'failed: the build broke',
      error: 'the build broke',
    });
    expect(sessionReadView({ ...read, session: stopped, pendingQuestions: [] }).status).toEqual({ name: 'stopped', words: 'stopped' });
    expect(sessionReadView({ ...read, session: stopped }).status.words).toBe('waiting for you (card)');
    expect(sessionView(failed)).not.toHaveProperty('status');
    expect(sessionView(failed)).not.toHaveProperty('lastTurn');
  });

  it('has no group for a session in none, and shows a reply being written', () => {
    const view = sessionReadView({ ...read, session, inFlight: 'Checking…' });
    expect(view).not.toHaveProperty('group');
    expect(view.inFlight).toBe('Checking…');
  });
});
