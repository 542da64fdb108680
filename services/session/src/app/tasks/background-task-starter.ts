/** What a provider uses to start a background shell task in its session's folder. */
export interface BackgroundTaskStarter {
  /** Starts `command` in `cwd`, described by `description` when given (else the command); throws with a message to show when it cannot. */
  start(input: { sessionId: string; cwd: string; command: string; description?: string | undefined }): Promise<{ id: string; status: string; description: string }>;
}
