import type { Schemas } from '@relay/user-api';
import { describe, expect, it } from 'vitest';
import { formatSessionRead } from '../src/format-session-read.ts';

const now = new Date('2026-10-18T09:10:00.000Z');

const session = (fields: Partial<Schemas['UserSession']>): Schemas['UserSession'] => ({
  id: 's1',
  title: 'Review',
  provider: 'script',
  model: 'script-1',
  state: 'idle',
  cwd: '',
  lastActivityAt: null,
  messageCount: 0,
  tasks: [],
  mode: 'agent',
  ...fields,
});

const message = (fields: Partial<Schemas['Message']>): Schemas['Message'] => ({
  id: 'm1',
  role: 'user',
  text: '',
  createdAt: '2026-10-18T09:00:00.000Z',
  ...fields,
});

/** A session read as GET /api/v1/sessions/:id answers it. */
const read = (fields: Partial<Schemas['SessionRead']>): Schemas['SessionRead'] => ({
  session: session({}),
  state: 'idle',
  status: { name: 'idle', words: '' },
  messages: [],
  inFlight: null,
  pendingQuestions: [],
  ...fields,
});

describe('formatSessionRead', () => {
  it('prints the header, group, messages with provenance, what is being written and the questions waiting', () => {
    const text = formatSessionRead(
      read({
        session: session({ state: 'running_turn', cwd: '/srv', startedBy: { id: 's0', title: 'Planner' } }),
        state: 'running_turn',
        status: { name: 'working', words: '' },
        group: { id: 'g', name: 'Release 2.4', role: 'member', members: [{ id: 's0', title: 'Planner', role: 'lead', state: 'idle' }] },
        messages: [
          message({
            role: 'agent',
            text: 'Check it.\nTwice.',
            provenance: { originRelay: 'desk', originSessionId: 's9', originSessionTitle: 'Planner', model: 'script-1', hops: 1, viaRelays: [] },
            delivery: 'delivered',
          }),
          message({ id: 'm2', role: 'assistant', text: 'Done.', createdAt: '2026-10-18T09:09:30.000Z', model: 'script-1' }),
        ],
        inFlight: 'Checking…',
        pendingQuestions: [{ id: 'card_1', kind: 'ask_user', question: 'Merge?', options: ['Yes', 'No'] }],
      }),
      now,
    );
    expect(text).toBe(
      [
        'Review (s1) · script/script-1 · running_turn · /srv',
        'via agent · "Planner"',
        'Group: Release 2.4 (member), 1 other member',
        '',
        'agent ↗ from desk · "Planner" · 10 min ago · delivered',
        '  Check it.',
        '  Twice.',
        '',
        'assistant (script-1) · just now',
        '  Done.',
        '',
        'Writing: Checking…',
        '',
        'Waiting for an answer: Merge? [Yes | No] (ask_user card_1)',
      ].join('\n'),
    );
  });

  it("heads a session whose last turn was stopped, or failed, with the read's status words", () => {
    const halted = session({ title: 'Halted' });
    const stopped = formatSessionRead(read({ session: halted, status: { name: 'stopped', words: 'stopped' } }), now);
    expect(stopped.split('\n')[0]).toBe('Halted (s1) · script/script-1 · stopped');
    const failed = formatSessionRead(read({ session: halted, status: { name: 'failed', words: 'failed: Out of coffee' } }), now);
    expect(failed.split('\n')[0]).toBe('Halted (s1) · script/script-1 · failed: Out of coffee');
  });

  it('says when there are no messages yet', () => {
    expect(formatSessionRead(read({ session: session({ title: 'New' }) }), now)).toContain('No messages yet.');
  });

  it('says where a message was cut and how to read the whole of it', () => {
    const text = formatSessionRead(
      read({
        session: session({ title: 'Big' }),
        messages: [message({ id: 'm9', text: 'x'.repeat(8000), truncated: true, length: 1_000_000, createdAt: null })],
      }),
      now,
    );
    expect(text.split('\n').at(-1)).toBe('  … cut at 8,000 of 1,000,000 characters; the whole: relay session show s1 --message m9');
  });
  it('says of each message sent to the session whether it is queued, delivered or failed', () => {
    const text = formatSessionRead(
      read({
        session: session({ title: 'Worker' }),
        messages: [
          message({ text: 'First', delivery: 'failed' }),
          message({ id: 'm2', role: 'error', text: 'This turn failed: boom.' }),
          message({ id: 'm3', role: 'schedule', text: 'Later', createdAt: '2026-10-18T09:10:00.000Z', delivery: 'queued' }),
        ],
      }),
      now,
    );
    expect(text).toContain('user · 10 min ago · failed\n');
    expect(text).toContain('turn failed · 10 min ago\n');
    expect(text).toContain('schedule · just now · queued\n');
  });
});
