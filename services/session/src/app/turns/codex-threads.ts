/**
 * What a Codex session keeps between turns, and for a turn another replica takes over: its Codex thread, and the
 * thread's rollout (Codex's own record of it, the file it resumes the thread from) with where Codex keeps it. Codex's
 * home is the sandbox's, gone or another machine's by the next turn; the relay keeps the rollout with the session,
 * out of the agent's reach, and writes it back into the next home before it resumes the thread.
 */
export interface CodexThread {
  threadId: string;
  /** The rollout's path under Codex's home (CODEX_HOME): sessions/YYYY/MM/DD/rollout-….jsonl. */
  rolloutPath: string;
  rollout: Uint8Array;
  /** The thread's token total when the rollout was kept: a turn that resumes it counts its own tokens from there. */
  tokens: { inputTokens: number; outputTokens: number };
}

/** Where Codex sessions' threads are kept, with the session. */
export interface CodexThreads {
  get(sessionId: string): Promise<CodexThread | undefined>;
  set(sessionId: string, thread: CodexThread): Promise<void>;
  /** Forgets the session's thread: its next turn starts a new one from the relay's record of the conversation. */
  forget(sessionId: string): Promise<void>;
}
