/** What a provider uses to start a background shell task in its session's folder. */
export interface BackgroundTaskStarter {
  /** Why no command may run on this relay (no sandbox can be had), or undefined when commands run. */
  refusal(): string | undefined;
  /** Where a command in `cwd` runs (its sandbox), as the command's approval card says. */
  where(cwd: string): string;
  /** Starts `command` in `cwd`, described by `description` when given (else the command); throws with a message to show when it cannot. */
  start(input: {
    sessionId: string;
    cwd: string;
    command: string;
    description?: string | undefined;
  }): Promise<{ id: string; status: string; description: string }>;
}
