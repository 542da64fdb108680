/**
 * The question service's limits in one place. The spec fixes none of these; they keep a card
 * readable and a request bounded.
 */
export const CardLimits = {
  TITLE_CHARS: 300,
  LINES: 50,
  LINE_CHARS: 1_000,
  OPTIONS: 20,
  OPTION_CHARS: 200,
  ANSWER_CHARS: 10_000,
  /** The longest AwaitCard, in relay-clock seconds: a week, well inside a timer's range at any clock rate. */
  WAIT_SECONDS: 604_800,
  /** Cards one listing returns, newest first. */
  LIST: 500,
  /** How long a keyed card's decision waits for the same call to be made again before that call asks anew: a day. */
  KEYED_DECISION_SECONDS: 86_400,
  CALL_KEY_CHARS: 200,
  RAISE_ID_CHARS: 200,
  /**
   * Cards one session may have waiting for the user at once: a hosted turn waits on one at a time, an external
   * session's calls each on theirs; past this, a call cannot bury the Inbox (REMOTE_RELAY_QUESTION_LIMIT).
   */
  PENDING_PER_SESSION: 10,
} as const;
