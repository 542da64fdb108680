/**
 * Where an agent's CLI process runs (Claude Code's, an ACP agent's): started in the sandbox and driven over its
 * stdio by the provider, for as long as the turn needs it. One port, two adapters: on one machine bubblewrap starts
 * it as a child of the session service (BubblewrapSandbox), on Kubernetes the command runner does, its stdio carried
 * by a relay.runner.v1 Exec call (RunnerSandbox). The caller gives its environment whole (the user's provider key
 * for that process only); the sandbox adds none of the relay's. Whether a CLI is there at all is the sandbox's to say
 * too (locate): the machine that starts it looks for it, so the session service's own image need not carry a CLI
 * that only the command runner starts.
 */
import type { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { CliLocation, CliProgram } from '@relay/service/cli-programs';

export type { CliLocation, CliProgram };

/** A CLI process in the sandbox, as a child process is to its parent (Node's ChildProcess is one). */
export interface SandboxedCli extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly killed: boolean;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  /** Ends it (with everything it started); the signal is a wish where it runs elsewhere. */
  kill(signal?: NodeJS.Signals): boolean;
}

export interface CliSandbox {
  /** Why no CLI may run here (no sandbox can be had), or undefined when they run in the sandbox. */
  readonly unavailable: string | undefined;
  /** Where its CLIs are looked for, as a reason a provider is unavailable names it ("on this machine"). */
  readonly machine: string;
  /**
   * Where each program lies where this sandbox starts it, executable there, or undefined where it is not: one answer
   * per program, in order. Rejects when it cannot tell (the command runner could not be asked).
   */
  locate(programs: readonly CliProgram[]): Promise<(CliLocation | undefined)[]>;
  /** What the approval card says of where a command in `folder` runs (its line "Runs in: …"). */
  where(folder: string): string;
  /**
   * Starts `argv` for the session `sessionId` (its user's sandbox; undefined: no session's, which only a sandbox that
   * tells no users apart runs) in `folder` with exactly `env`, its stdio the caller's; `readOnly`: where its program lies, when outside the system's folders;
   * `homeFiles`: files it finds in its home, read-only (their path there → their text), or it does not start. It emits 'spawn' once it runs,
   * 'error' when it could not start, then 'exit' and 'close' (code, signal) as a child process does.
   */
  spawn(input: {
    sessionId: string | undefined;
    folder: string;
    argv: readonly string[];
    env: Readonly<Record<string, string | undefined>>;
    readOnly?: readonly string[];
    homeFiles?: Readonly<Record<string, string>>;
  }): SandboxedCli;
}
