import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { Ask, AskRequest, AskStatus } from '@relay/proto/relay/question/v1/question_service';
import { keepAsk, pendingAsksAbout } from '../src/app/asks-about.ts';
import type { QuestionClient, SessionClient } from '../src/app/ports.ts';

/**
 * A session service that marks sessions (or refuses to) and clears marks, and a question service that keeps and lists
 * asks (`pending` of them about any session); both log their calls in order.
 */
function owners({ markRefusal, clearFailure, pending = 1 }: { markRefusal?: AppError; clearFailure?: Error; pending?: number } = {}) {
  const log: string[] = [];
  const sessions = {
    async noteAskAbout({ sessionId }: { sessionId: string }) {
      log.push(`noteAskAbout ${sessionId}`);
      if (markRefusal) throw markRefusal;
      return {};
    },
    async clearAskMark({ sessionId, askMark }: { sessionId: string; askMark: number }) {
      log.push(`clearAskMark ${sessionId} ${askMark}`);
      if (clearFailure) throw clearFailure;
      return { cleared: true };
    },
  } as unknown as SessionClient;
  const questions = {
    async ask(request: AskRequest) {
      log.push(`ask${request.dryRun ? ' (dry run)' : ''}`);
      return { ask: Ask.fromPartial({ id: 'ask_1', aboutSessionId: request.aboutSessionId || request.askingSessionId, status: AskStatus.ASK_STATUS_PENDING }) };
    },
    async listAsks({ aboutSessionId }: { aboutSessionId: string }) {
      log.push(`listAsks ${aboutSessionId}`);
      return { asks: Array.from({ length: pending }, (_, i) => Ask.fromPartial({ id: `ask_${i + 1}`, aboutSessionId, status: AskStatus.ASK_STATUS_PENDING })) };
    },
  } as unknown as QuestionClient;
  return { sessions, questions, log };
}

const request = (fields: Partial<AskRequest>) => AskRequest.fromPartial({ userId: 'u1', askingSessionId: 'asker', question: 'Ship tonight?', ...fields });
const marked = (askMark: number) => ({ session: { id: 'target' }, neverAskedAbout: false, askMark });

describe('keepAsk', () => {
  it('marks the session the ask is about before the question service keeps it, and again after', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({ aboutSessionId: 'target' }));
    expect(log).toEqual(['noteAskAbout target', 'ask', 'noteAskAbout target']);
  });

  it('marks the asking conversation for an ask about no other session', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({}));
    expect(log).toEqual(['noteAskAbout asker', 'ask', 'noteAskAbout asker']);
  });

  it('marks nothing for a dry run', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({ aboutSessionId: 'target', dryRun: true }));
    expect(log).toEqual(['ask (dry run)']);
  });

  it('keeps no ask when the session cannot be marked', async () => {
    const { log, ...both } = owners({ markRefusal: new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'No session target') });
    await expect(keepAsk(both, request({ aboutSessionId: 'target' }))).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(log).toEqual(['noteAskAbout target']);
  });
});

describe('pendingAsksAbout', () => {
  it('answers none without asking the question service when the session has no ask mark', async () => {
    const { log, ...both } = owners();
    expect(await pendingAsksAbout(both, 'u1', { session: { id: 'target' }, neverAskedAbout: true, askMark: 0 })).toEqual([]);
    expect(log).toEqual([]);
  });

  it('lists the asks pending about a marked session, and leaves its mark', async () => {
    const { log, ...both } = owners();
    const asks = await pendingAsksAbout(both, 'u1', marked(7));
    expect(asks.map((one) => one.id)).toEqual(['ask_1']);
    expect(log).toEqual(['listAsks target']);
  });

  it('takes off the mark it saw when no ask is pending about the session', async () => {
    const { log, ...both } = owners({ pending: 0 });
    expect(await pendingAsksAbout(both, 'u1', marked(7))).toEqual([]);
    expect(log).toEqual(['listAsks target', 'clearAskMark target 7']);
  });

  it('still answers when the mark cannot be taken off (the next read asks again)', async () => {
    const { log, ...both } = owners({ pending: 0, clearFailure: new Error('14 UNAVAILABLE: the session service went away') });
    expect(await pendingAsksAbout(both, 'u1', marked(7))).toEqual([]);
    expect(log).toEqual(['listAsks target', 'clearAskMark target 7']);
  });

  it('takes off nothing after a session service that predates marks (no mark, yet asks may be pending)', async () => {
    const { log, ...both } = owners({ pending: 0 });
    expect(await pendingAsksAbout(both, 'u1', marked(0))).toEqual([]);
    expect(log).toEqual(['listAsks target']);
  });
});
