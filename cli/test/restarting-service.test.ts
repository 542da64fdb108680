// relay up's services restart when they exit on their own, and stay down once stopped (Ctrl-C).
import { afterEach, describe, expect, it } from 'vitest';
import { ManagedProcess } from '../src/managed-process.ts';
import { RestartingService } from '../src/restarting-service.ts';

const started: RestartingService[] = [];
afterEach(async () => {
  for (const service of started.splice(0)) await service.stop(2_000);
});

function service(warnings: string[], pids: number[]): Promise<RestartingService> {
  return RestartingService.start('session', {
    start: () => ManagedProcess.start({ name: 'session', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], onLine: () => undefined }),
    started: (child) => pids.push(child.pid),
    warn: (message) => warnings.push(message),
    firstDelayMs: 50,
  }).then((s) => (started.push(s), s));
}

async function until<T>(check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('not within 5 s');
}

describe('RestartingService', () => {
  it('starts a service killed with SIGKILL again, with backoff, and says so; twice', async () => {
    const warnings: string[] = [];
    const pids: number[] = [];
    const running = await service(warnings, pids);
    process.kill(pids[0]!, 'SIGKILL');
    await until(() => (running.restarts === 1 ? true : undefined));
    process.kill(pids[1]!, 'SIGKILL');
    await until(() => (running.restarts === 2 ? true : undefined));
    expect(new Set(pids).size).toBe(3);
    expect(warnings).toEqual([
      'the session service was killed by SIGKILL; starting it again in 50 ms',
      'the session service is running again (restart 1)',
      // The second quick exit waits twice as long.
      'the session service was killed by SIGKILL; starting it again in 100 ms',
      'the session service is running again (restart 2)',
    ]);
  });

  it('stays down once stopped', async () => {
    const warnings: string[] = [];
    const pids: number[] = [];
    const running = await service(warnings, pids);
    await running.stop(2_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running.restarts).toBe(0);
    expect(pids).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});
