// Bounded results beyond read_session: every relay_tool result that echoes a long text — the reply, error and
// pending question of send, create_session and wait; the messages wait reads in an external session's own
// conversation; list_questions' questions, details and answers (here and on a paired relay); the answer
// answer_question gives back — shows at most 8,000 characters of it and says it was cut and how long it is.
import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import type { ActionDefinition } from '../src/app/relay-tool/define-action.ts';
import { answerQuestion } from '../src/app/relay-tool/actions/answer-question.ts';
import { listQuestions } from '../src/app/relay-tool/actions/list-questions.ts';
import { wait } from '../src/app/relay-tool/actions/wait.ts';
import { askView } from '../src/app/views/ask-view.ts';
import { turnFields } from '../src/app/views/turn-result.ts';
import type { ToolArguments } from '../src/domain/tool-arguments.ts';
import { boundedFields, MESSAGE_TEXT_LIMIT } from '../src/app/views/session-view.ts';
import { MessageDelivery, SessionState, TurnStatus, type TurnResult } from '@relay/proto/relay/session/v1/session';
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import { AskStatus, CardKind, CardStatus, type Ask, type Card } from '@relay/proto/relay/question/v1/question_service';

const LONG = 'x'.repeat(100_000);
const CUT = 'x'.repeat(MESSAGE_TEXT_LIMIT);
const call = (action: ActionDefinition, args: ToolArguments, context: object) =>
  action.handler(args, { ...(context as Omit<ActionContext, 'action'>), action });

const turn = (over: Partial<TurnResult>): TurnResult => ({
  sessionId: 's1',
  messageId: 'm1',
  status: TurnStatus.TURN_STATUS_DONE,
  replyText: '',
  replyModel: 'script-1',
  error: '',
  pendingQuestions: [],
  delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
  ...over,
});

const ask = (over: Partial<Ask>): Ask => ({
  id: 'ask_1',
  userId: 'u1',
  askingSessionId: 'caller',
  aboutSessionId: 'caller',
  question: 'Ship?',
  options: [],
  recommendation: '',
  detail: '',
  status: AskStatus.ASK_STATUS_ANSWERED,
  answer: 'Yes',
  choice: '',
  via: '',
  createdAt: undefined,
  endedAt: undefined,
  ...over,
});

const base = {
  caller: { userId: 'u1', sessionId: 'caller' },
  relayName: 'desk',
  openUrlBase: undefined,
  paired: [
    {
      name: 'build-box',
      url: 'https://build-box.example.com',
      online: true,
      version: '0.9.19',
      level: AgentLevel.AGENT_LEVEL_FULL,
      ownerUserId: 'u1',
      pairedAt: undefined,
    },
  ],
  settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 },
  signal: new AbortController().signal,
  progress: async () => undefined,
};

describe('send, create_session and wait (turnFields)', () => {
  it('bounds a long reply with truncated and length; a short one is whole', () => {
    expect(turnFields(turn({ replyText: LONG }), undefined).reply).toEqual({ text: CUT, truncated: true, length: 100_000, model: 'script-1' });
    expect(turnFields(turn({ replyText: 'pong' }), undefined).reply).toEqual({ text: 'pong', model: 'script-1' });
  });

  it('bounds an error (errorTruncated) and a pending question (truncated)', () => {
    expect(turnFields(turn({ status: TurnStatus.TURN_STATUS_ERROR, error: LONG }), undefined)).toMatchObject({ error: CUT, errorTruncated: true });
    const waiting = turnFields(
      turn({ status: TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER, pendingQuestions: [{ id: 'card_1', kind: 'ask_user', question: LONG, options: ['Yes'] }] }),
      undefined,
    );
    expect(waiting.pendingQuestions).toEqual([{ id: 'card_1', kind: 'ask_user', question: CUT, options: ['Yes'], truncated: true }]);
  });

  it('gives the user API the whole texts', () => {
    const whole = turnFields(turn({ replyText: LONG }), undefined, { whole: true });
    expect(whole.reply).toEqual({ text: LONG, model: 'script-1' });
  });
});

describe('list_questions', () => {
  it('bounds each of an ask’s question, detail and answer, and names the ones cut with their lengths', async () => {
    const context = { ...base, questions: { listAsks: async () => ({ asks: [ask({ detail: LONG, answer: LONG }), ask({ id: 'ask_2' })] }) } };
    const result = await call(listQuestions, {}, context);
    const [long, short] = result.questions as Record<string, unknown>[];
    expect(long).toMatchObject({ question: 'Ship?', detail: CUT, answer: CUT, truncated: true, lengths: { detail: 100_000, answer: 100_000 } });
    expect(short).toMatchObject({ answer: 'Yes' });
    expect(short).not.toHaveProperty('truncated');
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
  });

  it('bounds the asks kept on a paired relay the same way', async () => {
    const context = {
      ...base,
      sessions: {
        getConversation: async () => ({ session: { id: 'caller' }, unlockedRelays: [{ relay: 'build-box', byMention: true }], turnProvenance: undefined }),
      },
      remoteEvents: {
        listRemoteAsks: async () => ({
          asks: [
            {
              id: 'ask_9',
              aboutSessionId: 'r1',
              question: LONG,
              options: [],
              status: 'answered',
              answer: 'ok',
              choice: '',
              via: '',
              createdAt: undefined,
              endedAt: undefined,
            },
          ],
        }),
      },
    };
    const result = await call(listQuestions, { relay: 'build-box' }, context);
    expect((result.questions as unknown[])[0]).toMatchObject({ question: CUT, answer: 'ok', truncated: true, lengths: { question: 100_000 } });
  });

  it('askView keeps a short ask as it is', () => {
    expect(askView(ask({}))).toMatchObject({ question: 'Ship?', answer: 'Yes' });
    expect(askView(ask({}))).not.toHaveProperty('lengths');
  });
});

describe('answer_question', () => {
  it('gives back a long answer bounded, with answerTruncated and answerLength', async () => {
    const card = (answer: string): Card => ({
      id: 'card_7',
      userId: 'u1',
      sessionId: 'other',
      kind: CardKind.CARD_KIND_QUESTION,
      title: 'Which?',
      lines: [],
      options: [],
      status: CardStatus.CARD_STATUS_ANSWERED,
      answer,
      choices: [],
      createdAt: undefined,
      decidedAt: undefined,
    });
    const context = {
      ...base,
      sessions: { getConversation: async () => ({ session: { id: 'caller', mode: 'agent' } }) },
      questions: { decideCard: async (request: { answer: string }) => ({ card: card(request.answer) }) },
    };
    const result = await call(answerQuestion, { question_id: 'card_7', answer: LONG }, context);
    expect(result).toMatchObject({ answer: CUT, answerTruncated: true, answerLength: 100_000 });
  });
});

describe('wait on an external session’s own conversation', () => {
  it('reads what arrived with each message bounded and a note saying so', async () => {
    const context = {
      ...base,
      caller: { userId: 'u1', sessionId: 'caller', external: true },
      sessions: {
        getPendingMessages: async () => ({ pending: { count: 1, previews: ['[relay event] …'] } }),
        readSession: async () => ({
          session: { id: 'caller', title: 'My editor', state: SessionState.SESSION_STATE_RUNNING_TURN, tasks: [], messageCount: 1 },
          messages: [{ id: 'e1', role: 'event', text: LONG, provenance: undefined, createdAt: undefined, model: '' }],
          inFlight: '',
          pendingQuestions: [],
          groupMembers: [],
        }),
      },
    };
    const result = await call(wait, { session: 'caller' }, context);
    expect(result).toMatchObject({ arrived: 1, messages: [{ id: 'e1', text: CUT, truncated: true, length: 100_000 }] });
    expect(String(result.note)).toContain('1 message is longer than 8,000 characters');
  });
});

describe('boundedFields', () => {
  it('leaves texts of exactly the limit whole', () => {
    expect(boundedFields({ a: CUT, b: '' })).toEqual({ a: CUT, b: '' });
  });
});
