/**
 * What a Claude session keeps between turns: Claude Code's session to resume (a Claude Cloud session's: the API's
 * cloud session id), and its running cost total.
 */
export interface ClaudeSessionState {
  resumeId: string;
  /** The cumulative cost at the end of the last turn (Claude Code's total_cost_usd; Claude Cloud's list_cost). */
  costUsdTotal: number;
}

/** Where the state of Claude sessions is kept, with the session. */
export interface ClaudeSessionStates {
  get(sessionId: string): Promise<ClaudeSessionState | undefined>;
  set(sessionId: string, state: ClaudeSessionState): Promise<void>;
}
