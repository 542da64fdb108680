// The console's live digest of the user's sessions (console-update.ts): read from the first page of the listing, never
// from every session, and changed by what the page shows: a session coming to the top, and how many there are.
import { Session } from '@relay/proto/relay/session/v1/session';
import { describe, expect, it } from 'vitest';
import { readConsoleUpdate } from '../src/app/console-update.ts';
import type { QuestionClient, SessionClient } from '../src/app/ports.ts';

/** Owners whose listing answers `listed` and records what it was asked; nothing waits in the Inbox. */
function owners(listed: { sessions: Session[]; total: number }) {
  const asked: unknown[] = [];
  const sessions = {
    listSessions: async (request: unknown) => {
      asked.push(request);
      return { ...listed, pending: undefined };
    },
  };
  const questions = { listAsks: async () => ({ asks: [], more: false }), listCards: async () => ({ cards: [], more: false }) };
  return { asked, owners: { sessions: sessions as unknown as SessionClient, questions: questions as unknown as QuestionClient } };
}

const page = (...ids: string[]) => ids.map((id) => Session.fromPartial({ id, title: id }));

describe('readConsoleUpdate', () => {
  it('reads the first page of every scope, not every session', async () => {
    const { asked, owners: both } = owners({ sessions: page('a'), total: 1 });
    await readConsoleUpdate(both, 'u1', undefined);
    expect(asked).toEqual([{ userId: 'u1', scope: 'all', limit: 100, offset: 0 }]);
  });

  it('changes the digest when the page changes or the total does, and not otherwise', async () => {
    const digest = async (listed: { sessions: Session[]; total: number }) => (await readConsoleUpdate(owners(listed).owners, 'u1', undefined)).sessions;
    const before = await digest({ sessions: page('a', 'b'), total: 150 });
    expect(await digest({ sessions: page('a', 'b'), total: 150 })).toBe(before);
    expect(await digest({ sessions: page('b', 'a'), total: 150 })).not.toBe(before);
    // How many there are is part of it too.
    expect(await digest({ sessions: page('a', 'b'), total: 151 })).not.toBe(before);
  });
});
