// Bounded reads: a session read shows at most MESSAGE_TEXT_LIMIT characters of each message (and of a reply in
// flight), says which were cut and how long they are, and where the whole text is.
import { describe, expect, it } from 'vitest';
import { MessageDelivery, type ChatMessage, type Session } from '@relay/proto/relay/session/v1/session';
import type { SessionRead } from '../src/domain/answers.ts';
import { boundedText, MESSAGE_TEXT_LIMIT, messageView, sessionReadView } from '../src/app/views/session-view.ts';

const session = {
  id: '3f9c2a1e-1111-4000-8000-000000000001',
  title: 'Review',
  provider: 'script',
  model: 'script-1',
  state: 'idle',
  cwd: '/home/dev',
  archived: false,
  external: false,
  messageCount: 2,
  lastActivityAt: undefined,
  effort: '',
  mode: 'agent',
  repo: '',
  branch: '',
  group: undefined,
  startedBy: undefined,
  mayCreateSessions: false,
  tasks: [],
} as unknown as Session;

const message = (id: string, text: string): ChatMessage => ({
  id,
  role: 'user',
  text,
  provenance: undefined,
  createdAt: undefined,
  model: '',
  delivery: MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED,
});
const read = (messages: ChatMessage[], inFlight = ''): SessionRead => ({
  session,
  messages,
  inFlight,
  pendingQuestions: [],
  groupMembers: [],
  neverAskedAbout: true,
  askMark: 0,
});

describe('bounded session reads', () => {
  it('shows a 1 MB prompt as its first 8,000 characters, with truncated, length and a note', () => {
    const huge = 'a'.repeat(1_000_000);
    const view = sessionReadView(read([message('m1', huge), message('m2', 'short')]));
    expect(MESSAGE_TEXT_LIMIT).toBe(8000);
    expect(view.messages[0]).toEqual({ id: 'm1', role: 'user', text: 'a'.repeat(8000), truncated: true, length: 1_000_000, createdAt: null });
    expect(view.messages[1]).toEqual({ id: 'm2', role: 'user', text: 'short', createdAt: null });
    expect(view.note).toContain('1 message is longer than 8,000 characters');
    expect(view.note).toContain('relay session show 3f9c2a1e --message ID');
    expect(JSON.stringify(view).length).toBeLessThan(10_000);
  });

  it('leaves a message of exactly 8,000 characters whole, with no note', () => {
    const view = sessionReadView(read([message('m1', 'b'.repeat(8000))]));
    expect(view.messages[0]).not.toHaveProperty('truncated');
    expect(view).not.toHaveProperty('note');
  });

  it('caps a reply in flight too', () => {
    const view = sessionReadView(read([], 'c'.repeat(9000)));
    expect(view.inFlight).toBe('c'.repeat(8000));
    expect(view.inFlightTruncated).toBe(true);
  });

  it('caps a pending question the same way', () => {
    const view = sessionReadView({
      ...read([]),
      pendingQuestions: [{ id: 'card_1', kind: 'ask_user', question: 'q'.repeat(9000), options: ['Yes'] }],
    } as SessionRead);
    expect(view.pendingQuestions).toEqual([{ id: 'card_1', kind: 'ask_user', question: 'q'.repeat(8000), options: ['Yes'], truncated: true }]);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'d'.repeat(7999)}😀tail`;
    expect(boundedText(text, 8000)).toEqual({ text: 'd'.repeat(7999), truncated: true });
  });

  it('shows the whole of one message when asked for it', () => {
    expect(messageView(message('m1', 'e'.repeat(20_000))).text).toHaveLength(20_000);
  });
});
