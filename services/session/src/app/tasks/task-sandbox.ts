/**
 * Where a background task's command runs, as something started, streamed and stopped: on one machine a process of
 * the relay's own in the bubblewrap sandbox, on Kubernetes a call to the command runner (docs/adr/0031). Either way
 * the command reaches its session's folder and nothing of the relay's, and the caller gives its environment whole.
 */

/** A command started in the sandbox. */
export interface SandboxedCommand {
  /**
   * Resolves once it runs: its process group on this machine (the one a restart ends by pid), or null where it runs
   * elsewhere and ends with its call. Rejects, saying why, when it could not start.
   */
  readonly started: Promise<{ localPid: number | null }>;
  /**
   * Resolves once it ended, after all its output was given to onOutput: its exit code or the signal that ended it,
   * and, when the sandbox lost it (the runner's call failed), why.
   */
  readonly ended: Promise<{ exitCode: number | null; signal: string | null; lost?: string }>;
  /** Ends it and everything it started (its process group); nothing once it ended. */
  stop(): void;
}

export interface TaskSandbox {
  /** Why no command may run here (no sandbox can be had), or undefined when commands run in the sandbox. */
  readonly unavailable: string | undefined;
  /** What the approval card says of where a command in `folder` runs (its line "Runs in: …"). */
  where(folder: string): string;
  /**
   * Starts `argv` for the session `sessionId` (whose user's sandbox it runs in) in `folder` (a real path) with exactly
   * `env`; its stdout and stderr go to onOutput as they come.
   */
  start(input: {
    sessionId: string;
    folder: string;
    argv: readonly string[];
    env: Readonly<Record<string, string>>;
    onOutput: (chunk: Uint8Array) => void;
  }): SandboxedCommand;
}
