import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../src/relay-tool/action-context.ts';
import { passLoopGuard } from '../src/relay-tool/loop-guard.ts';
import type { AgentPromptCount, Card, CardEvent, Conversation } from '../src/ports.ts';

/** Just the parts of a context the loop guard touches, with a record of what it did. */
function contextWith(guard: AgentPromptCount, decision: Card['status'] | undefined) {
  const did: string[] = [];
  const card = (status: Card['status']): Card => ({
    id: 'card_1',
    userId: 'u1',
    sessionId: 'caller',
    kind: 'approval',
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
      countAgentPrompt: async (_id: string, dryRun: boolean) => {
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
        return card('pending');
      },
      awaitCard: async function* (): AsyncIterable<CardEvent> {
        if (decision) yield { kind: 'card', card: card(decision) };
      },
    },
  } as unknown as ActionContext;
  return { context, did };
}

const running = { hasRunningTurn: true, session: { external: false } } as Conversation;
const usedUp = { sent: 30, allowed: 30, usedUp: true };

describe('passLoopGuard', () => {
  it('counts the prompt without a card while prompts remain', async () => {
    const { context, did } = contextWith({ sent: 3, allowed: 30, usedUp: false }, undefined);
    await passLoopGuard(running, context, 'Nothing was sent.');
    expect(did).toEqual(['check', 'count']);
  });

  it('asks the user when used up; Allow grants 30 more, then counts', async () => {
    const { context, did } = contextWith(usedUp, 'allowed');
    await passLoopGuard(running, context, 'Nothing was sent.');
    expect(did).toEqual(['check', 'card: Let the agent keep prompting other agents?', 'grant', 'count']);
  });

  it('refuses with REMOTE_RELAY_LOOP_GUARD on Deny, counting nothing', async () => {
    const { context, did } = contextWith(usedUp, 'denied');
    await expect(passLoopGuard(running, context, 'Nothing was sent.')).rejects.toMatchObject({ code: 'REMOTE_RELAY_LOOP_GUARD' });
    expect(did).toEqual(['check', 'card: Let the agent keep prompting other agents?']);
  });

  it('refuses with REMOTE_RELAY_LOOP_GUARD when no turn runs to ask in, showing no card', async () => {
    const { context, did } = contextWith(usedUp, 'allowed');
    await expect(passLoopGuard({ hasRunningTurn: false, session: { external: false } } as Conversation, context, 'Nothing was created.')).rejects.toMatchObject({
      code: 'REMOTE_RELAY_LOOP_GUARD',
      message: expect.stringContaining('Nothing was created.'),
    });
    expect(did).toEqual(['check']);
  });
});
