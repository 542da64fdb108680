/**
 * Where an allowed command runs (decisions.md, Commands and the person's Allow): a sandbox that reaches its session's
 * folder and nothing of the relay's (its credentials, its state folder, its processes, other users' folders). A relay
 * where no sandbox can be had runs no command at all, never one unconfined.
 */

/** A process to start: the sandbox's own program and arguments, which run the command inside it. */
export interface SandboxedProcess {
  file: string;
  args: string[];
}

export interface CommandSandbox {
  /** Why no command may run on this machine (no sandbox can be had), or undefined when commands run in the sandbox. */
  readonly unavailable: string | undefined;
  /** What the approval card says of where a command in `folder` runs (its line "Runs in: …"). */
  where(folder: string): string;
  /**
   * How to start `argv` confined to `folder` (read and written) and, read-only, `readOnly` (a program that lies
   * outside the system's folders, such as an agent's CLI). The caller gives the environment whole: the sandbox adds
   * none of the relay's. Throws when the sandbox is unavailable.
   */
  wrap(input: { folder: string; argv: readonly string[]; readOnly?: readonly string[] }): SandboxedProcess;
}

/** The refusal a command meets where no sandbox can be had. */
export function noSandboxRefusal(why: string): string {
  return `commands do not run on this relay: no sandbox can be had here (${why}), and a command never runs unconfined`;
}
