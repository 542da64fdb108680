// How a Codex session keeps its thread (codex-thread-keeper.ts) against a scripted app-server: a kept rollout is
// written back under Codex's home and the thread resumed by id with the relay's policy; nothing kept, or a kept path
// outside Codex's sessions folder, is a new thread; a rollout is kept by its path under the home, and one that cannot
// be kept (outside the sessions folder, too big) forgets the session's thread. The thread's token total is kept with
// its rollout, and a resumed thread opens with it (a resumed turn meters its own tokens from there).
import { describe, expect, it } from 'vitest';
import { createLogger } from '@relay/telemetry';
import type { CodexThread, CodexThreads } from '../../src/app/turns/codex-threads.ts';
import { CodexThreadKeeper, MAX_ROLLOUT_BYTES } from '../../src/adapters/providers/codex/codex-thread-keeper.ts';

const log = createLogger({ name: 'codex-thread-keeper-test', level: 'silent' });
const HOME = '/tmp/home/.codex';
const ROLLOUT = 'sessions/2026/12/07/rollout-2026-12-07T10-00-00-t-1.jsonl';
const NONE = { inputTokens: 0, outputTokens: 0 };
/** The session's thread as a turn opened it (resumed, from 100 + 10 tokens). */
const thread = { id: 't-1', resumed: true, tokens: { inputTokens: 100, outputTokens: 10 } };
const POLICY = { model: 'gpt-5.4', cwd: '/work/s-1', sandbox: 'read-only', approvalPolicy: 'untrusted' };

class Threads implements CodexThreads {
  kept = new Map<string, CodexThread>();
  async get(sessionId: string) {
    return this.kept.get(sessionId);
  }
  async set(sessionId: string, thread: CodexThread) {
    this.kept.set(sessionId, thread);
  }
  async forget(sessionId: string) {
    this.kept.delete(sessionId);
  }
}

/** An app-server that records each request and answers it from `answers` by method. */
function appServer(answers: Record<string, (params: any) => unknown>) {
  const requests: [string, any][] = [];
  const connection = {
    request: async <T>(method: string, params: unknown): Promise<T> => {
      requests.push([method, params]);
      const answer = answers[method];
      if (answer === undefined) throw new Error(`no ${method}`);
      return answer(params) as T;
    },
  };
  return { connection, requests };
}

const keeper = (threads: Threads, connection: ReturnType<typeof appServer>['connection']) =>
  new CodexThreadKeeper({ threads, log, sessionId: 's-1', connection, home: HOME });

describe('CodexThreadKeeper', () => {
  it('opens a new, non-ephemeral thread with the relay’s policy when none is kept', async () => {
    const server = appServer({ 'thread/start': () => ({ thread: { id: 't-new', path: `${HOME}/${ROLLOUT}` } }) });
    const opened = await keeper(new Threads(), server.connection).open({ model: 'gpt-5.4', cwd: '/work/s-1' });
    expect(opened).toEqual({ id: 't-new', path: `${HOME}/${ROLLOUT}`, resumed: false, tokens: NONE });
    expect(server.requests).toEqual([['thread/start', { ...POLICY, ephemeral: false }]]);
  });

  it('writes the kept rollout back under Codex’s home and resumes the thread by id', async () => {
    const threads = new Threads();
    threads.kept.set('s-1', { threadId: 't-1', rolloutPath: ROLLOUT, rollout: Buffer.from('{"kept":true}\n'), tokens: { inputTokens: 100, outputTokens: 10 } });
    const server = appServer({
      'fs/createDirectory': () => ({}),
      'fs/writeFile': () => ({}),
      'thread/resume': () => ({ thread: { id: 't-1', path: `${HOME}/${ROLLOUT}` } }),
    });
    const opened = await keeper(threads, server.connection).open({ model: 'gpt-5.4', cwd: '/work/s-1' });
    expect(opened).toEqual({ id: 't-1', path: `${HOME}/${ROLLOUT}`, resumed: true, tokens: { inputTokens: 100, outputTokens: 10 } });
    expect(server.requests).toEqual([
      ['fs/createDirectory', { path: `${HOME}/sessions/2026/12/07`, recursive: true }],
      ['fs/writeFile', { path: `${HOME}/${ROLLOUT}`, dataBase64: Buffer.from('{"kept":true}\n').toString('base64') }],
      ['thread/resume', { threadId: 't-1', ...POLICY, excludeTurns: true }],
    ]);
  });

  it('starts a new thread, writing nothing, when the kept path leaves Codex’s sessions folder or Codex cannot resume it', async () => {
    const threads = new Threads();
    threads.kept.set('s-1', { threadId: 't-1', rolloutPath: 'sessions/../../../etc/rollout-x.jsonl', rollout: Buffer.from('x'), tokens: NONE });
    const escaping = appServer({ 'thread/start': () => ({ thread: { id: 't-new', path: null } }) });
    expect(await keeper(threads, escaping.connection).open({ model: 'gpt-5.4', cwd: '/work/s-1' })).toMatchObject({ id: 't-new', resumed: false });
    expect(escaping.requests.map(([method]) => method)).toEqual(['thread/start']);

    threads.kept.set('s-1', { threadId: 't-1', rolloutPath: ROLLOUT, rollout: Buffer.from('x'), tokens: NONE });
    const refusing = appServer({
      'fs/createDirectory': () => ({}),
      'fs/writeFile': () => ({}),
      'thread/start': () => ({ thread: { id: 't-new', path: null } }),
    });
    expect(await keeper(threads, refusing.connection).open({ model: 'gpt-5.4', cwd: '/work/s-1' })).toMatchObject({ id: 't-new', resumed: false });
    expect(refusing.requests.map(([method]) => method)).toEqual(['fs/createDirectory', 'fs/writeFile', 'thread/resume', 'thread/start']);
  });

  it('keeps the rollout by its path under the home; one it cannot keep forgets the session’s thread', async () => {
    const threads = new Threads();
    const server = appServer({ 'fs/readFile': () => ({ dataBase64: Buffer.from('{"turn":2}\n').toString('base64') }) });
    const keeping = keeper(threads, server.connection);
    expect(await keeping.keep({ ...thread, path: `${HOME}/${ROLLOUT}` }, { inputTokens: 150, outputTokens: 15 })).toBe(true);
    expect(threads.kept.get('s-1')).toEqual({
      threadId: 't-1',
      rolloutPath: ROLLOUT,
      rollout: Buffer.from('{"turn":2}\n'),
      tokens: { inputTokens: 150, outputTokens: 15 },
    });

    expect(await keeping.keep({ ...thread, path: '/tmp/elsewhere/rollout-t-1.jsonl' }, NONE)).toBe(false);
    expect(threads.kept.has('s-1')).toBe(false);

    await threads.set('s-1', { threadId: 't-1', rolloutPath: ROLLOUT, rollout: Buffer.from('older'), tokens: NONE });
    const big = appServer({ 'fs/readFile': () => ({ dataBase64: Buffer.alloc(MAX_ROLLOUT_BYTES + 1).toString('base64') }) });
    expect(await keeper(threads, big.connection).keep({ ...thread, path: `${HOME}/${ROLLOUT}` }, NONE)).toBe(false);
    expect(threads.kept.has('s-1')).toBe(false);
  });
});
