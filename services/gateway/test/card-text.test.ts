import { describe, expect, it } from 'vitest';
import { SessionOrigin, SessionState, type Session } from '@relay/proto/relay/session/v1/session';
import { archiveCard, createSessionCard, sendCard, stopCard, updateSessionCard } from '../src/domain/card-text.ts';

const session: Session = {
  id: '3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f',
  userId: 'u1',
  title: 'Review: server/',
  provider: 'script',
  model: 'script-1',
  state: SessionState.SESSION_STATE_IDLE,
  cwd: '/home/dev/shop',
  archived: false,
  origin: SessionOrigin.SESSION_ORIGIN_HOSTED,
  messageCount: 0,
  createdAt: undefined,
  lastActivityAt: undefined,
  effort: '',
  mode: 'agent',
  repo: '',
  branch: '',
  group: { id: 'grp_7a1', name: 'Release 2.4', role: 'member' },
  startedBySessionId: '',
  startedByTitle: '',
  mayCreateSessions: false,
  autoCompactWindow: 'auto',
  thinkingEnabled: true,
  thinkingDisplay: '',
  tasks: [],
  lastTurn: undefined,
};

describe('createSessionCard', () => {
  it('names the relay and title, provider and model, folder, group and prompt', () => {
    expect(createSessionCard('desk', session, 'Review the code under server/.')).toEqual({
      title: 'Start a session on desk: "Review: server/"',
      lines: ['Provider: script · Model: script-1', 'Folder: /home/dev/shop', 'Group: Release 2.4 (grp_7a1)', 'Prompt: "Review the code under server/."'],
      asked: 'starting a session on desk: "Review: server/"',
      nothing: 'Nothing was created.',
    });
  });

  it('shows the effort, the repository of a cloud session and a mode other than agent', () => {
    const cloud = {
      ...session,
      provider: 'claude-cloud',
      model: 'claude-sonnet-5-5',
      effort: 'high',
      cwd: '',
      repo: 'example-org/sample-repo',
      branch: 'feature/banner',
      group: undefined,
      mode: 'plan',
    };
    expect(createSessionCard('desk', cloud, 'Change the banner.').lines).toEqual([
      'Provider: claude-cloud · Model: claude-sonnet-5-5 · Effort: high',
      'Repository: example-org/sample-repo · Branch: feature/banner',
      'Mode: plan',
      'Prompt: "Change the banner."',
    ]);
  });
});

describe('sendCard', () => {
  it('shows the prompt, and the billing switch when there is one', () => {
    const card = sendCard('desk', session, { text: 'Go on.', model: 'claude-sonnet-5-5', effort: 'low', billingSwitch: 'API key' });
    expect(card.title).toBe('Send a prompt to "Review: server/" on desk');
    expect(card.lines).toEqual(['Prompt: "Go on."', 'Model: claude-sonnet-5-5 · Effort: low', 'Switches billing to API key']);
    expect(card.nothing).toBe('Nothing was sent.');
  });

  it('shows only the prompt for a plain send', () => {
    expect(sendCard('desk', session, { text: 'Go on.', billingSwitch: '' }).lines).toEqual(['Prompt: "Go on."']);
  });
});

describe('updateSessionCard', () => {
  it('lists the change: model and effort on one line, the group with its id', () => {
    const card = updateSessionCard('desk', 'Review: server/', { model: 'claude-sonnet-5-5', effort: 'low', group: 'release 2.4' }, session.group, false);
    expect(card).toEqual({
      title: 'Change "Review: server/" on desk',
      lines: ['Model: claude-sonnet-5-5 · Effort: low', 'Group: Release 2.4 (grp_7a1)'],
      asked: 'changing "Review: server/" on desk',
      nothing: 'Nothing was changed.',
    });
  });

  it('names a group that does not exist yet as new, and says what an Allow covers', () => {
    const card = updateSessionCard(
      'desk',
      'Review: server/',
      { group: 'Hotfix', cwd: '/srv', thinkingEnabled: true, autoCompactWindow: '200000' },
      undefined,
      true,
    );
    expect(card.lines).toEqual([
      'Group: Hotfix (a new group)',
      'Folder: /srv',
      'Auto-compact window: 200000 · Thinking: on',
      "Allow also covers this conversation's later changes to sessions it did not start on desk.",
    ]);
  });
});

describe('stop and archive cards', () => {
  it('name the session and the relay', () => {
    expect(stopCard('desk', 'Nightly deploy')).toMatchObject({ title: 'Stop the turn in "Nightly deploy" on desk', nothing: 'Nothing was stopped.' });
    expect(archiveCard('desk', 'Nightly deploy')).toMatchObject({ title: 'Archive "Nightly deploy" on desk', nothing: 'Nothing was archived.' });
  });
});
