import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  child: ChildProcess;
  messages: string[];
  waitFor(message: string): Promise<void>;
  exit: Promise<number | null>;
}

function start(args: string[] = []): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/shutdown-main.ts', ...args], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: string[] = [];
  const waiters: { message: string; resolve: () => void }[] = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const { msg } = JSON.parse(line) as { msg: string };
      messages.push(msg);
      for (const waiter of waiters.filter((candidate) => candidate.message === msg)) waiter.resolve();
    }
  });
  return {
    child,
    messages,
    waitFor: (message) => (messages.includes(message) ? Promise.resolve() : new Promise((resolve) => waiters.push({ message, resolve }))),
    exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
}

describe('onShutdownSignal', () => {
  it('runs the shutdown once on SIGTERM and exits 0', async () => {
    const run = start();
    await run.waitFor('ready');
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    expect(run.messages).toEqual(['ready', 'shutting down', 'cleanup started', 'shut down']);
  });

  it('exits 1 on a second signal while the shutdown is still running', async () => {
    const run = start(['--slow']);
    await run.waitFor('ready');
    run.child.kill('SIGINT');
    await run.waitFor('cleanup started');
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(1);
    expect(run.messages.at(-1)).toBe('second signal, exiting now');
  });
});
