/** What a provider uses to start a background shell task in its session's folder. */
export interface BackgroundTaskStarter {
  /** Starts `command` in `cwd`; throws with a message to show when it cannot. */
  start(input: { sessionId: string; cwd: string; command: string }): Promise<{ id: string; status: string; description: string }>;
}
