import type { Schemas } from '@relay/user-api';
import { describe, expect, it } from 'vitest';
import { formatSessionsPage, formatSessionsTable, sessionRow, timeAgo } from '../src/format-sessions.ts';

const now = new Date('2026-11-30T12:00:00.000Z');

/** A session as GET /api/v1/sessions lists it. */
const session = (fields: Partial<Schemas['UserSession']>): Schemas['UserSession'] => ({
  id: 's1',
  title: 'Terminal',
  provider: '',
  model: '',
  state: 'idle',
  cwd: '/home/dev',
  lastActivityAt: null,
  messageCount: 0,
  tasks: [],
  mode: 'agent',
  ...fields,
});

describe('formatSessionsTable', () => {
  it('aligns the columns', () => {
    const table = formatSessionsTable(
      [
        session({ id: 's1', title: 'Terminal', lastActivityAt: '2026-11-30T11:55:00.000Z' }),
        session({
          id: 's-long',
          title: 'Refactor',
          provider: 'claude',
          model: 'sonnet',
          state: 'running_turn',
          messageCount: 12,
          lastActivityAt: '2026-11-30T09:00:00.000Z',
          archived: true,
        }),
      ],
      'all',
      now,
    );
    expect(table.split('\n')).toEqual([
      'ID      TITLE     STATE                   MODEL          MSGS  LAST ACTIVITY',
      's1      Terminal  idle                    -              0     5 min ago',
      's-long  Refactor  running_turn, archived  claude/sonnet  12    3 h ago',
    ]);
  });

  it("shows each session's status in the gateway's words: failed with its error (cut to fit), stopped", () => {
    const at = '2026-11-30T11:55:00.000Z';
    const table = formatSessionsTable(
      [
        session({ id: 's1', title: 'Broke down', status: { name: 'failed', words: 'failed: Out of coffee' }, messageCount: 2, lastActivityAt: at }),
        session({ id: 's2', title: 'Long error', status: { name: 'failed', words: `failed: ${'e'.repeat(80)}` }, messageCount: 2, lastActivityAt: at }),
        session({ id: 's3', title: 'Halted', status: { name: 'stopped', words: 'stopped' }, messageCount: 1, lastActivityAt: at, archived: true }),
      ],
      'all',
      now,
    );
    const [, failed, long, stopped] = table.split('\n');
    expect(failed).toMatch(/^s1 +Broke down +failed: Out of coffee +- +2 +5 min ago$/);
    expect(long).toContain(`failed: ${'e'.repeat(39)}…`);
    expect(stopped).toMatch(/^s3 +Halted +stopped, archived +- +1 +5 min ago$/);
  });

  it('says so when there are none', () => {
    expect(formatSessionsTable([], 'active', now)).toBe('No active sessions.');
    expect(formatSessionsTable([], 'all', now)).toBe('No sessions.');
  });
});

describe('formatSessionsPage', () => {
  const page = (count: number, fields: Omit<Schemas['SessionPage'], 'sessions'>): Schemas['SessionPage'] => ({
    sessions: Array.from({ length: count }, (_, n) => session({ id: `s${n}`, title: `Worker ${n}` })),
    ...fields,
  });

  it('is the table alone when one page holds every session', () => {
    expect(formatSessionsPage(page(2, { sessionsTotal: 2, page: 1, pages: 1 }), 'active', now)).toBe(
      formatSessionsTable(page(2, { sessionsTotal: 2, page: 1, pages: 1 }).sessions, 'active', now),
    );
  });

  it('says which sessions it shows of how many, how many more there are and the command that reads them', () => {
    const lines = formatSessionsPage(page(100, { sessionsTotal: 250, page: 1, pages: 3, nextPage: 2 }), 'active', now).split('\n');
    expect(lines).toHaveLength(1 + 100 + 2);
    expect(lines.at(-1)).toBe(
      'Sessions 1–100 of 250 (page 1 of 3), the most recently active first. 150 more: relay sessions --page 2, or --all for every one.',
    );
    const middle = formatSessionsPage(page(100, { sessionsTotal: 250, page: 2, pages: 3, nextPage: 3 }), 'all', now).split('\n');
    expect(middle.at(-1)).toBe(
      'Sessions 101–200 of 250 (page 2 of 3), the most recently active first. 50 more: relay sessions --scope all --page 3, or --all for every one.',
    );
  });

  it('says nothing more on the last page, and names the last page for one past it', () => {
    const last = formatSessionsPage(page(50, { sessionsTotal: 250, page: 3, pages: 3 }), 'all', now).split('\n');
    expect(last.at(-1)).toBe('Sessions 201–250 of 250 (page 3 of 3), the most recently active first.');
    expect(formatSessionsPage(page(0, { sessionsTotal: 250, page: 7, pages: 3 }), 'archived', now)).toBe(
      'Page 7 is past the last one: 250 sessions fill 3 pages; relay sessions --scope archived --page 3 shows the last.',
    );
  });
});

describe('sessionRow', () => {
  it('shows the state where there is no status, "-" for no activity yet, and shortens long titles', () => {
    const row = sessionRow(session({ id: 'x', title: 'a'.repeat(60), state: 'background_only', messageCount: 3 }), now);
    expect(row).toMatchObject({ state: 'background_only', messages: '3', lastActivity: '-' });
    expect(row.title).toHaveLength(40);
  });
});

describe('timeAgo', () => {
  it.each([
    ['2026-11-30T11:59:30.000Z', 'just now'],
    ['2026-11-30T11:00:00.000Z', '1 h ago'],
    ['2026-11-27T12:00:00.000Z', '3 d ago'],
    ['not a date', '-'],
  ])('%s → %s', (value, expected) => {
    expect(timeAgo(value, now)).toBe(expected);
  });
});
