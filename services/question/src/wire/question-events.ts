/** The stream this service declares and the subjects it publishes on. */
export const QUESTION_EVENTS_STREAM = { name: 'QUESTION_EVENTS', subjects: ['relay.question.v1.>'] };

export const QuestionSubject = {
  CARD_DECIDED: 'relay.question.v1.card_decided',
  QUESTION_ANSWERED: 'relay.question.v1.question_answered',
} as const;
