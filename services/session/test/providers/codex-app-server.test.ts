// The client side of Codex's app-server protocol (app-server-connection.ts) against a scripted peer on two pipes:
// requests and their results or errors, the app-server's own requests answered by method (or refused as unknown),
// notifications, and the end of the connection failing what still waits.
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { AppServerConnection } from '../../src/adapters/providers/codex/app-server-connection.ts';

/** A connection whose app-server is the test: what the relay wrote, one message a line, and a way to answer. */
function connect(handlers: ConstructorParameters<typeof AppServerConnection>[1] = {}) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const sent: any[] = [];
  let read = 0;
  let waiting: (() => void) | undefined;
  createInterface({ input: toServer }).on('line', (line) => {
    sent.push(JSON.parse(line));
    waiting?.();
  });
  const notifications: [string, unknown][] = [];
  const connection = new AppServerConnection({ input: toServer, output: fromServer }, handlers, (method, params) => notifications.push([method, params]));
  return {
    connection,
    notifications,
    sent,
    /** The next message the relay writes (in order, whether written yet or not). */
    next: async () => {
      while (sent.length <= read) await new Promise<void>((resolve) => (waiting = resolve));
      return sent[read++];
    },
    serverSends: (message: unknown) => fromServer.write(`${JSON.stringify(message)}\n`),
    serverExits: () => fromServer.end(),
  };
}

describe('AppServerConnection', () => {
  it('sends a request as one line without "jsonrpc", and resolves it with its result', async () => {
    const peer = connect();
    const sent = peer.next();
    const result = peer.connection.request('thread/start', { model: 'gpt-5.4' });
    expect(await sent).toEqual({ id: 1, method: 'thread/start', params: { model: 'gpt-5.4' } });
    peer.serverSends({ id: 1, result: { thread: { id: 't1' } } });
    expect(await result).toEqual({ thread: { id: 't1' } });
  });

  it("rejects a request with the app-server's error message", async () => {
    const peer = connect();
    const result = peer.connection.request('turn/start', {});
    await peer.next();
    peer.serverSends({ id: 1, error: { code: -32600, message: 'no such thread' } });
    await expect(result).rejects.toThrow('no such thread');
  });

  it("answers the app-server's request with its method's handler, and refuses a method it does not serve", async () => {
    const peer = connect({
      'item/commandExecution/requestApproval': async (params) => ({ decision: (params as { command: string }).command === 'ls' ? 'accept' : 'decline' }),
    });
    let answer = peer.next();
    peer.serverSends({ id: 0, method: 'item/commandExecution/requestApproval', params: { command: 'ls' } });
    expect(await answer).toEqual({ id: 0, result: { decision: 'accept' } });
    answer = peer.next();
    peer.serverSends({ id: 'a', method: 'item/tool/requestUserInput', params: {} });
    expect(await answer).toEqual({ id: 'a', error: { code: -32601, message: 'the relay does not serve item/tool/requestUserInput' } });
  });

  it('answers a handler that throws with an error, never a result', async () => {
    const peer = connect({ 'item/fileChange/requestApproval': async () => Promise.reject(new Error('the turn was stopped')) });
    const answer = peer.next();
    peer.serverSends({ id: 4, method: 'item/fileChange/requestApproval', params: {} });
    expect(await answer).toEqual({ id: 4, error: { code: -32000, message: 'the turn was stopped' } });
  });

  it('passes notifications on, and skips lines that are not JSON', async () => {
    const peer = connect();
    peer.serverSends('not json');
    peer.serverSends({ method: 'turn/completed', params: { turn: { id: 'u1', status: 'completed' } } });
    const result = peer.connection.request('initialize', {});
    await peer.next();
    peer.serverSends({ id: 1, result: {} });
    await result;
    expect(peer.notifications).toEqual([['turn/completed', { turn: { id: 'u1', status: 'completed' } }]]);
  });

  it('fails what still waits once the app-server exits, and every later request at once', async () => {
    const peer = connect();
    const waitingRequest = peer.connection.request('turn/start', {});
    await peer.next();
    peer.serverExits();
    await expect(waitingRequest).rejects.toThrow('the Codex app-server exited');
    await expect(peer.connection.request('turn/interrupt', {})).rejects.toThrow('the Codex app-server exited');
    expect(peer.sent).toHaveLength(1);
  });
});
