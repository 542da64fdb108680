/** Question cards a provider raises in its own session (ask_user), through the question service. */
export interface QuestionCards {
  /** Shows a question card in the session; returns its id. */
  raise(input: { userId: string; sessionId: string; question: string; options: string[] }): Promise<string>;
  /**
   * Waits until the user decides the card: the answer ('' when dismissed). Throws TurnFailed when
   * the card was withdrawn, and the signal's reason once it aborts.
   */
  awaitAnswer(cardId: string, signal: AbortSignal): Promise<string>;
  /** Withdraws the session's pending cards (its turn ended while one waited). */
  cancel(sessionId: string): Promise<void>;
}
