/** What a Claude session keeps between turns: Claude Code's session to resume, and its running cost total. */
export interface ClaudeSessionState {
  resumeId: string;
  /** The SDK's cumulative total_cost_usd at the end of the last turn (a resumed session continues it). */
  costUsdTotal: number;
}

/** Where the state of Claude sessions is kept, with the session. */
export interface ClaudeSessionStates {
  get(sessionId: string): Promise<ClaudeSessionState | undefined>;
  set(sessionId: string, state: ClaudeSessionState): Promise<void>;
}
