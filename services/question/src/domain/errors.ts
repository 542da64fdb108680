/**
 * The question service's error codes: the one catalogue of its refusals, filled by ask, withdraw, answer
 * and raise card.
 */
export const QuestionErrorCode = {} as const;
