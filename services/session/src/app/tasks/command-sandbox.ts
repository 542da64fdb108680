/**
 * Where an allowed command runs (decisions.md, Commands and the person's Allow): a sandbox that reaches its session's
 * folder and nothing of the relay's (its credentials, its state folder, its processes, other users' folders). A relay
 * where no sandbox can be had runs no command at all, never one unconfined.
 */

/** A process to start: the sandbox's own program and arguments, which run the command inside it (bubblewrap's). */
export interface SandboxedProcess {
  file: string;
  args: string[];
}

/** The refusal a command meets where no sandbox can be had. */
export function noSandboxRefusal(why: string): string {
  return `commands do not run on this relay: no sandbox can be had here (${why}), and a command never runs unconfined`;
}
