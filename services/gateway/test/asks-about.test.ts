import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { Ask, AskRequest, AskStatus } from '@relay/proto/relay/question/v1/question_service';
import { keepAsk, pendingAsksAbout } from '../src/app/asks-about.ts';
import type { QuestionClient, SessionClient } from '../src/app/ports.ts';

/** A session service that marks sessions (or refuses to), and a question service that keeps and lists asks; both log their calls in order. */
function owners(markRefusal?: AppError) {
  const log: string[] = [];
  const sessions = {
    async noteAskAbout({ sessionId }: { sessionId: string }) {
      log.push(`noteAskAbout ${sessionId}`);
      if (markRefusal) throw markRefusal;
      return {};
    },
  } as unknown as SessionClient;
  const questions = {
    async ask(request: AskRequest) {
      log.push(`ask${request.dryRun ? ' (dry run)' : ''}`);
      return { ask: Ask.fromPartial({ id: 'ask_1', aboutSessionId: request.aboutSessionId || request.askingSessionId, status: AskStatus.ASK_STATUS_PENDING }) };
    },
    async listAsks({ aboutSessionId }: { aboutSessionId: string }) {
      log.push(`listAsks ${aboutSessionId}`);
      return { asks: [Ask.fromPartial({ id: 'ask_1', aboutSessionId, status: AskStatus.ASK_STATUS_PENDING })] };
    },
  } as unknown as QuestionClient;
  return { sessions, questions, log };
}

const request = (fields: Partial<AskRequest>) => AskRequest.fromPartial({ userId: 'u1', askingSessionId: 'asker', question: 'Ship tonight?', ...fields });

describe('keepAsk', () => {
  it('marks the session the ask is about before the question service keeps it', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({ aboutSessionId: 'target' }));
    expect(log).toEqual(['noteAskAbout target', 'ask']);
  });

  it('marks the asking conversation for an ask about no other session', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({}));
    expect(log).toEqual(['noteAskAbout asker', 'ask']);
  });

  it('marks nothing for a dry run', async () => {
    const { log, ...both } = owners();
    await keepAsk(both, request({ aboutSessionId: 'target', dryRun: true }));
    expect(log).toEqual(['ask (dry run)']);
  });

  it('keeps no ask when the session cannot be marked', async () => {
    const { log, ...both } = owners(new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', 'No session target'));
    await expect(keepAsk(both, request({ aboutSessionId: 'target' }))).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(log).toEqual(['noteAskAbout target']);
  });
});

describe('pendingAsksAbout', () => {
  it('answers none without asking the question service when no ask was ever about the session', async () => {
    const { log, questions } = owners();
    expect(await pendingAsksAbout(questions, 'u1', { session: { id: 'target' }, neverAskedAbout: true })).toEqual([]);
    expect(log).toEqual([]);
  });

  it('lists the asks pending about a session an ask was about', async () => {
    const { log, questions } = owners();
    const asks = await pendingAsksAbout(questions, 'u1', { session: { id: 'target' }, neverAskedAbout: false });
    expect(asks.map((one) => one.id)).toEqual(['ask_1']);
    expect(log).toEqual(['listAsks target']);
  });
});
