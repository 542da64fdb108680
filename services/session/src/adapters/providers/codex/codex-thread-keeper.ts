/**
 * A Codex session's one thread across its turns, whichever replica and sandbox run them. Codex keeps a thread in its
 * rollout, a file in its home (CODEX_HOME/sessions/…); that home is the sandbox's (bubblewrap's private /tmp, gone
 * with the turn; or the command runner's, on whichever pod ran it), so the relay keeps the rollout itself, in its
 * database (CodexThreads): read through the app-server (`fs/readFile`) once a turn ends and before a card parks it,
 * written back into the next turn's home (`fs/writeFile`) before `thread/resume`. The agent never reaches the relay's
 * copy: its commands see only the sandbox's home, and what they may change there during a turn is Codex's own record
 * of its own thread. A thread that cannot be resumed (none kept, a rollout too big to keep, Codex refusing it) is a
 * new one seeded with the relay's record of the conversation, as before threads were kept.
 */
import type { Logger } from '@relay/telemetry';
import type { CodexThread, CodexThreads } from '../../../app/turns/codex-threads.ts';
import type { AppServerConnection } from './app-server-connection.ts';

/** A rollout bigger than this is not kept (the next turn replays the relay's record instead). */
export const MAX_ROLLOUT_BYTES = 16 * 1024 * 1024;

/** Where a rollout may lie under Codex's home: its sessions folder, never above it (no segment starts with a dot). */
const ROLLOUT_PATH = /^sessions\/(?:[\w-][\w.-]*\/)*rollout-[\w.-]+\.jsonl$/;

/** How every turn's thread runs: Codex asks before each command and file change; the relay's sandbox encloses it. */
export interface ThreadSettings {
  model: string;
  cwd: string;
}

/** The turn's thread, and whether it is the session's thread resumed (false: a new one). */
export interface OpenedThread {
  id: string;
  /** Its rollout, absolute, in this CLI's home (undefined when Codex names none). */
  path: string | undefined;
  resumed: boolean;
  /** The thread's token total before this turn (its kept total; none for a new thread). */
  tokens: { inputTokens: number; outputTokens: number };
}

export class CodexThreadKeeper {
  readonly #threads: CodexThreads;
  readonly #log: Logger;
  readonly #sessionId: string;
  readonly #connection: Pick<AppServerConnection, 'request'>;
  readonly #home: string;

  /** `home`: the CLI's CODEX_HOME (its initialize answer). */
  constructor(input: { threads: CodexThreads; log: Logger; sessionId: string; connection: Pick<AppServerConnection, 'request'>; home: string }) {
    this.#threads = input.threads;
    this.#log = input.log;
    this.#sessionId = input.sessionId;
    this.#connection = input.connection;
    this.#home = input.home.replace(/\/+$/, '');
  }

  /**
   * Resumes the session's thread from the rollout kept for it; else (none kept, or Codex cannot resume it, which is
   * logged) starts a new one.
   *
   * Read-only keeps the folder an untrusted project to Codex (its own .codex configuration, hooks and rules are not
   * loaded: they could start processes no card allowed); the turn then runs in an external sandbox, the relay's.
   */
  async open(settings: ThreadSettings): Promise<OpenedThread> {
    const policy = { model: settings.model, cwd: settings.cwd, sandbox: 'read-only', approvalPolicy: 'untrusted' };
    const kept = await this.#threads.get(this.#sessionId);
    if (kept !== undefined) {
      try {
        return await this.#resume(kept, policy);
      } catch (error) {
        this.#log.warn({ err: error, threadId: kept.threadId }, "Codex's thread could not be resumed; the turn starts a new one from the relay's record");
      }
    }
    const started = await this.#connection.request<{ thread: { id: string; path?: string | null } }>('thread/start', { ...policy, ephemeral: false });
    return { id: started.thread.id, path: started.thread.path ?? undefined, resumed: false, tokens: { inputTokens: 0, outputTokens: 0 } };
  }

  /**
   * Keeps the thread's rollout as it is now, with its token total `tokens`, for the session (what the next turn, or
   * replica, resumes); false when it
   * could not, and then the session's thread is forgotten: an older rollout would miss what the thread did since, the
   * relay's record does not.
   */
  async keep(thread: OpenedThread, tokens: OpenedThread['tokens']): Promise<boolean> {
    const relative = thread.path?.startsWith(`${this.#home}/`) ? thread.path.slice(this.#home.length + 1) : undefined;
    try {
      if (relative === undefined || !ROLLOUT_PATH.test(relative)) throw new Error(`the rollout ${thread.path} is not in Codex's sessions folder`);
      const read = await this.#connection.request<{ dataBase64: string }>('fs/readFile', { path: thread.path });
      const rollout = Buffer.from(read.dataBase64, 'base64');
      if (rollout.byteLength > MAX_ROLLOUT_BYTES) throw new Error(`the rollout is ${rollout.byteLength} bytes, more than the ${MAX_ROLLOUT_BYTES} kept`);
      await this.#threads.set(this.#sessionId, { threadId: thread.id, rolloutPath: relative, rollout, tokens });
      return true;
    } catch (error) {
      this.#log.warn({ err: error, threadId: thread.id }, "Codex's rollout could not be kept; the next turn replays the relay's record");
      await this.#threads.forget(this.#sessionId).catch((cause: unknown) => this.#log.warn({ err: cause }, "Codex's thread could not be forgotten"));
      return false;
    }
  }

  /** Removes the rollout from the CLI's home once kept (the command runner's homes outlive the turn). */
  async tidy(thread: OpenedThread): Promise<void> {
    if (thread.path !== undefined) await this.#connection.request('fs/remove', { path: thread.path, force: true }).catch(() => undefined);
  }

  async #resume(kept: CodexThread, policy: Record<string, string>): Promise<OpenedThread> {
    if (!ROLLOUT_PATH.test(kept.rolloutPath)) throw new Error(`the kept rollout's path ${kept.rolloutPath} is not under Codex's sessions folder`);
    const path = `${this.#home}/${kept.rolloutPath}`;
    await this.#connection.request('fs/createDirectory', { path: path.slice(0, path.lastIndexOf('/')), recursive: true });
    await this.#connection.request('fs/writeFile', { path, dataBase64: Buffer.from(kept.rollout).toString('base64') });
    // By id: Codex finds the rollout in its sessions folder (a path is its experimental API's).
    const resumed = await this.#connection.request<{ thread: { id: string; path?: string | null } }>('thread/resume', {
      threadId: kept.threadId,
      ...policy,
      excludeTurns: true,
    });
    return { id: resumed.thread.id, path: resumed.thread.path ?? path, resumed: true, tokens: kept.tokens };
  }
}
