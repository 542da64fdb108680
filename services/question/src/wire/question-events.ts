/** The stream this service declares for its events (question_asked, question_answered, card_decided come with ask). */
export const QUESTION_EVENTS_STREAM = { name: 'QUESTION_EVENTS', subjects: ['relay.question.v1.>'] };
