/**
 * The Copilot runtime in the CLI sandbox (CliSandbox.spawn: bubblewrap on one machine, the command runner on
 * Kubernetes, as the session's user for its folder). The SDK starts its runtime as a child process of its own and
 * speaks JSON-RPC over that child's stdio; here the child is a bridge on this machine (Node, built-ins only) that
 * connects to a unix socket in a folder only this process's user can enter, and sends the runtime arguments and the
 * environment the SDK gave it. This side starts the runtime with them in the sandbox and joins the connection to its
 * stdin and stdout. The bridge's end (the SDK's stop, or its kill) ends the runtime; the runtime's end ends the bridge.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliSandbox, SandboxedCli } from '../../../app/tasks/cli-sandbox.ts';

/**
 * The bridge the SDK starts (`node -e BRIDGE -- <socket> <runtime arguments…>`): its first line on the socket is the
 * runtime's arguments and environment, then its stdin; what comes back is its stdout. It ends when the socket does.
 */
const BRIDGE = [
  'const [socketPath, ...args] = process.argv.slice(1);',
  "const socket = require('node:net').connect(socketPath);",
  "socket.write(JSON.stringify({ args, env: process.env }) + '\\n');",
  'process.stdin.pipe(socket);',
  'socket.pipe(process.stdout);',
  "socket.on('error', () => process.exit(1));",
  "socket.on('close', () => process.exit(0));",
].join('\n');

/**
 * The runtime's state folder (COPILOT_HOME) is its sandbox's private home (bubblewrap's, or the runner's for the
 * session's user): only the sandbox knows where that is, so it is set there.
 */
const IN_SANDBOX_HOME = ['/bin/sh', '-c', 'COPILOT_HOME="$HOME/.copilot" exec "$@"', 'copilot-runtime'];

/** What a runtime's stderr is kept of, to say why it failed. */
const STDERR_CHARS = 2_000;

/** A runtime the SDK reaches through the bridge, started in the sandbox once the bridge connects. */
export interface SandboxedRuntime {
  /** What the SDK starts (RuntimeConnection.forStdio): the bridge. */
  readonly bridge: { path: string; args: string[] };
  /** Why the runtime could not start, or what it said before it ended (the tail of its stderr); undefined when nothing. */
  failure(): string | undefined;
  /** Ends the runtime, the socket and its folder. */
  close(): Promise<void>;
}

/**
 * Listens for one bridge on a fresh socket; its runtime is `argv` followed by the SDK's arguments, started for the
 * session in `folder` with the SDK's environment (which holds none of the relay's: the SDK's `env` and what it adds).
 */
export async function sandboxedRuntime(input: {
  sandbox: CliSandbox;
  sessionId: string;
  folder: string;
  argv: readonly string[];
  readOnly: readonly string[];
}): Promise<SandboxedRuntime> {
  // mkdtemp makes it 0700: no other user of this machine reaches the socket.
  const dir = await mkdtemp(join(tmpdir(), 'relay-copilot-'));
  const socketPath = join(dir, 'runtime.sock');
  let runtime: SandboxedCli | undefined;
  let refusal: string | undefined;
  let stderr = '';
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    // One bridge, one runtime: the socket takes no other connection.
    server.close();
    socket.on('error', () => runtime?.kill());
    void readHeader(socket).then(
      ([{ args, env }, rest]) => {
        runtime = start(socket, args, env);
        runtime.stdin.write(rest);
        socket.pipe(runtime.stdin);
      },
      (error: unknown) => {
        refusal = error instanceof Error ? error.message : String(error);
        socket.destroy();
      },
    );
  });
  const start = (socket: Socket, args: readonly string[], env: Record<string, string>): SandboxedCli => {
    const cli = input.sandbox.spawn({
      sessionId: input.sessionId,
      folder: input.folder,
      argv: [...IN_SANDBOX_HOME, ...input.argv, ...args],
      env,
      readOnly: input.readOnly,
    });
    cli.once('error', (error: Error) => {
      refusal = error.message;
      socket.destroy();
    });
    cli.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_CHARS)));
    // Written after it ended: as to a closed pipe.
    cli.stdin.on('error', () => undefined);
    cli.stdout.pipe(socket);
    // The bridge gone (the SDK stopped or killed it): the runtime goes too.
    socket.once('close', () => cli.kill());
    return cli;
  };
  server.listen(socketPath);
  await once(server, 'listening');
  return {
    bridge: { path: process.execPath, args: ['-e', BRIDGE, '--', socketPath] },
    failure: () => refusal ?? (stderr.trim() === '' ? undefined : stderr.trim()),
    close: async () => {
      runtime?.kill();
      if (server.listening) server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The bridge's first line (the runtime's arguments and environment) and what came after it; the socket paused after it. */
function readHeader(socket: Socket): Promise<[{ args: string[]; env: Record<string, string> }, Buffer]> {
  return new Promise((resolve, reject) => {
    let read = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      read = Buffer.concat([read, chunk]);
      const end = read.indexOf(0x0a);
      if (end < 0) return;
      socket.pause();
      socket.off('data', onData).off('end', onEnd);
      try {
        resolve([JSON.parse(read.subarray(0, end).toString('utf8')) as { args: string[]; env: Record<string, string> }, read.subarray(end + 1)]);
      } catch (error) {
        reject(error as Error);
      }
    };
    const onEnd = () => reject(new Error("the Copilot runtime's bridge ended before it said what to start"));
    socket.on('data', onData).once('end', onEnd);
  });
}
