import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import { passLoopGuard } from '../src/app/relay-tool/pass-loop-guard.ts';
import { SessionOrigin } from '@relay/proto/relay/session/v1/session';
import type { CountAgentPromptResponse as AgentPromptCount } from '@relay/proto/relay/session/v1/session_service';
import type { Conversation } from '../src/domain/answers.ts';
import { CardKind, CardStatus, type AwaitCardResponse, type Card } from '@relay/proto/relay/question/v1/question_service';
import { taskEffects } from './task-effects.ts';

/** Just the parts of a context the loop guard touches, with a record of what it did. */
function contextWith(guard: AgentPromptCount, decision: CardStatus | undefined) {
  const did: string[] = [];
  const card = (status: CardStatus): Card => ({
    id: 'card_1',
    userId: 'u1',
    sessionId: 'caller',
    kind: CardKind.CARD_KIND_APPROVAL,
    title: '',
    lines: [],
    options: [],
    status,
    answer: '',
    choices: [],
    createdAt: undefined,
    decidedAt: undefined,
  });
  const context = {
    caller: { userId: 'u1', sessionId: 'caller' },
    settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 },
    signal: new AbortController().signal,
    progress: async () => undefined,
    sessions: {
      countAgentPrompt: async ({ dryRun }: { dryRun: boolean }) => {
        did.push(dryRun ? 'check' : 'count');
        return guard;
      },
      grantAgentPrompts: async () => {
        did.push('grant');
      },
    },
    questions: {
      raiseCard: async (request: { title: string }) => {
        did.push(`card: ${request.title}`);
        return { card: card(CardStatus.CARD_STATUS_PENDING) };
      },
      awaitCard: async function* (): AsyncIterable<AwaitCardResponse> {
        if (decision) yield { card: card(decision) };
      },
    },
  } as unknown as ActionContext;
  return { context, did };
}

const running = { hasRunningTurn: true, session: { origin: SessionOrigin.SESSION_ORIGIN_HOSTED } } as Conversation;
const usedUp = { sent: 30, allowed: 30, usedUp: true };

describe('passLoopGuard', () => {
  it('counts the prompt without a card while prompts remain', async () => {
    const { context, did } = contextWith({ sent: 3, allowed: 30, usedUp: false }, undefined);
    await passLoopGuard(running, context, 'Nothing was sent.');
    expect(did).toEqual(['check', 'count']);
  });

  it('asks the user when used up; Allow grants 30 more, then counts', async () => {
    const { context, did } = contextWith(usedUp, CardStatus.CARD_STATUS_ALLOWED);
    await passLoopGuard(running, context, 'Nothing was sent.');
    expect(did).toEqual(['check', 'card: Let the agent keep prompting other agents?', 'grant', 'count']);
  });

  it('refuses with REMOTE_RELAY_LOOP_GUARD on Deny, counting nothing', async () => {
    const { context, did } = contextWith(usedUp, CardStatus.CARD_STATUS_DENIED);
    await expect(passLoopGuard(running, context, 'Nothing was sent.')).rejects.toMatchObject({ code: 'REMOTE_RELAY_LOOP_GUARD' });
    expect(did).toEqual(['check', 'card: Let the agent keep prompting other agents?']);
  });

  it('refuses with REMOTE_RELAY_LOOP_GUARD when no turn runs to ask in, showing no card', async () => {
    const { context, did } = contextWith(usedUp, CardStatus.CARD_STATUS_ALLOWED);
    await expect(
      passLoopGuard({ hasRunningTurn: false, session: { origin: SessionOrigin.SESSION_ORIGIN_HOSTED } } as Conversation, context, 'Nothing was created.'),
    ).rejects.toMatchObject({
      code: 'REMOTE_RELAY_LOOP_GUARD',
      message: expect.stringContaining('Nothing was created.'),
    });
    expect(did).toEqual(['check']);
  });

  describe('in a call run as an MCP task', () => {
    it('counts the prompt once and records it in the task', async () => {
      const { context, did } = contextWith(usedUp, CardStatus.CARD_STATUS_ALLOWED);
      const { recorded, effects } = taskEffects();
      await passLoopGuard(running, { ...context, effects }, 'Nothing was sent.');
      expect(did).toEqual(['check', 'card: Let the agent keep prompting other agents?', 'grant', 'count']);
      expect(Object.keys(recorded)).toEqual(['count_agent_prompt']);
    });

    it('taken over after the prompt was counted, neither checks the guard again nor asks the person (the count now holds this prompt)', async () => {
      // Asked again, the guard would read this very prompt and find itself used up; Deny would say nothing was sent.
      const { context, did } = contextWith(usedUp, CardStatus.CARD_STATUS_DENIED);
      const { effects } = taskEffects({ count_agent_prompt: { sent: 30, allowed: 30, usedUp: false } });
      await passLoopGuard(running, { ...context, effects }, 'Nothing was sent.');
      expect(did).toEqual([]);
    });
  });
});
