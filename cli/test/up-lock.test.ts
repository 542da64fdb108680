import { describe, expect, it } from 'vitest';
import { decideUpLock, parseUpLock, runningMessage } from '../src/up-lock.ts';

const lockText = JSON.stringify({
  pid: 4242,
  startedAt: '2026-11-30T10:00:00.000Z',
  gatewayUrl: 'http://127.0.0.1:7420',
  mcpUrl: 'http://127.0.0.1:7420/mcp',
  children: [{ name: 'session', pid: 4300 }, { name: 'bogus' }],
});

describe('decideUpLock', () => {
  it('acquires when there is no lock', () => {
    expect(decideUpLock(undefined, () => true)).toEqual({ action: 'acquire' });
  });

  it('reports a lock whose relay up still runs', () => {
    const decision = decideUpLock(lockText, (pid) => pid === 4242);
    expect(decision.action).toBe('report-running');
    if (decision.action === 'report-running') expect(runningMessage(decision.lock)).toBe('relay is already running: http://127.0.0.1:7420 (pid 4242)');
  });

  it('takes over a lock whose process is gone, keeping what it started for cleanup', () => {
    const decision = decideUpLock(lockText, () => false);
    expect(decision).toEqual({ action: 'take-over', stale: expect.objectContaining({ pid: 4242, children: [{ name: 'session', pid: 4300 }] }) });
  });

  it('takes over a lock it cannot read', () => {
    expect(decideUpLock('{"pid": "x"', () => true)).toEqual({ action: 'take-over', stale: undefined });
    expect(decideUpLock('{"pid": -1}', () => true)).toEqual({ action: 'take-over', stale: undefined });
  });
});

describe('runningMessage', () => {
  it('says "starting" while the URLs are not known yet', () => {
    const lock = parseUpLock(JSON.stringify({ pid: 7, startedAt: '', children: [] }));
    expect(lock && runningMessage(lock)).toBe('relay is already starting (pid 7)');
  });
});
