/**
 * answer_question: answers a question card waiting in another session (`choices` or `answer`). An
 * agent cannot answer its own question or a relay's approval card (the question service refuses
 * both), nor an ask: that is refused with REMOTE_RELAY_FORBIDDEN before anyone is called. A write:
 * in the ask and plan modes the user allows it on a card first.
 */
import { boundedField } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { toolError } from '../../../domain/errors.ts';
import { checkedOnly, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { quoteStart } from '../../../domain/one-line.ts';
import { shortId } from '../../views/turn-result.ts';
import { CardDecider, type Card } from '@relay/proto/relay/question/v1/question_service';
import { cardStatusName } from '../../views/question-view.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';

export const answerQuestion = defineAction({
  name: 'answer_question',
  args: argumentsOf('relay', 'session', 'question_id', 'choices', 'answer'),
  relay: 'required',
  write: true,
  toPaired: { level: 'full', forwarded: true },
  handler: runAnswerQuestion,
  fromPaired: serveAnswerQuestion,
});

async function runAnswerQuestion(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['question_id']);
  if ((args.choices === undefined || args.choices.length === 0) && args.answer === undefined) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', 'answer_question: one of choices and answer is required. Nothing was answered.');
  }
  if (args.question_id.startsWith('ask_')) {
    throw toolError(
      'REMOTE_RELAY_FORBIDDEN',
      `answer_question: ${args.question_id} is an ask; only the user answers asks, in the session or an Inbox. Nothing was answered.`,
    );
  }
  const relay = thisRelay(args.relay, context);
  const { caller, questions, sessions } = context;
  if (args.session === caller.sessionId) {
    throw toolError('REMOTE_RELAY_FORBIDDEN', "answer_question: that is your own conversation's question; it is the user's to answer. Nothing was answered.");
  }
  const decision = decisionOf(args, caller.userId, caller.sessionId);
  const checked = answered((await questions.decideCard({ ...decision, dryRun: true })).card, 'DecideCard', 'card');
  if (args.session !== undefined && checked.sessionId !== args.session) {
    throw toolError('REMOTE_RELAY_NOT_FOUND', `answer_question: no question ${args.question_id} is waiting in session ${args.session}. Nothing was answered.`);
  }
  const conversation = await getConversation(sessions, caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    const card = {
      title: `Answer a question in session ${shortId(checked.sessionId)} on ${relay}`,
      lines: [
        `Question: ${quoteStart(checked.title, 200)}`,
        `Answer: ${quoteStart([...(args.choices ?? []), args.answer ?? ''].filter(Boolean).join(' · '), 200)}`,
      ],
      asked: `answering question ${checked.id} on ${relay}`,
      nothing: 'Nothing was answered.',
    };
    await askApproval(card, conversation, context);
  }
  const card = answered((await questions.decideCard({ ...decision, dryRun: false })).card, 'DecideCard', 'card');
  return answeredResult(relay, card);
}

async function serveAnswerQuestion(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['question_id']);
  if ((args.choices === undefined || args.choices.length === 0) && args.answer === undefined) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', 'answer_question: one of choices and answer is required. Nothing was answered.');
  }
  if (args.question_id.startsWith('ask_')) {
    throw toolError('REMOTE_RELAY_FORBIDDEN', `answer_question: ${args.question_id} is an ask; only the user answers asks. Nothing was answered.`);
  }
  // An agent answers, so the question service refuses approval cards; no session here is the caller's own.
  const decision = decisionOf(args, origin.userId, `relay:${origin.relayName}/${origin.provenance.originSessionId}`);
  const checked = answered((await context.questions.decideCard({ ...decision, dryRun: true })).card, 'DecideCard', 'card');
  if (args.session !== undefined && checked.sessionId !== args.session) {
    throw toolError('REMOTE_RELAY_NOT_FOUND', `answer_question: no question ${args.question_id} is waiting in session ${args.session}. Nothing was answered.`);
  }
  if (origin.dryRun) return checkedOnly('answer_question', context.relayName, { session: checked.sessionId, question_id: checked.id });
  const card = answered((await context.questions.decideCard({ ...decision, dryRun: false })).card, 'DecideCard', 'card');
  return answeredResult(context.relayName, card);
}

/** The answer as the question service takes it, from the agent session `agentSessionId`. */
function decisionOf(args: ToolArguments & { question_id: string }, userId: string, agentSessionId: string) {
  return {
    userId,
    cardId: args.question_id,
    decision: 'answer',
    answer: args.answer ?? '',
    choices: args.choices ?? [],
    agentSessionId,
    decidedBy: CardDecider.CARD_DECIDER_AGENT,
  };
}

function answeredResult(relay: string, card: Card): Success {
  return success(
    `answer_question → ${relay} session ${shortId(card.sessionId)}: question ${card.id} answered`,
    { session: card.sessionId, question_id: card.id, status: cardStatusName(card.status), ...answerField(card.answer), choices: card.choices },
    relay,
  );
}

/** The answer as given back, bounded as read_session bounds a message (answerTruncated and answerLength when cut). */
function answerField(answer: string) {
  const bounded = boundedField(answer);
  return { answer: bounded.text, ...(bounded.truncated ? { answerTruncated: true as const, answerLength: bounded.length } : {}) };
}
