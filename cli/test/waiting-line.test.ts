import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { showWaiting, waitingText, type WaitingClock } from '../src/commands/waiting-line.ts';

function manualClock() {
  let nowMs = 0;
  let tick: (() => void) | undefined;
  const clock: WaitingClock = {
    nowMs: () => nowMs,
    every: (callback) => {
      tick = callback;
      return () => (tick = undefined);
    },
  };
  return { clock, advance: (ms: number) => ((nowMs += ms), tick?.()), ticking: () => tick !== undefined };
}

function stream(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { out, text: () => text };
}

describe('showWaiting', () => {
  it('on a terminal, says what it waits for and for how long, then erases the line', () => {
    const { clock, advance, ticking } = manualClock();
    const err = stream(true);
    const end = showWaiting(err.out, 'the reply in session 3f9c2a1e', clock);
    advance(1000);
    advance(64_000);
    end();
    expect(ticking()).toBe(false);
    expect(err.text().split('\r\u001b[2K')).toEqual([
      '',
      'waiting for the reply in session 3f9c2a1e… 0 s (Ctrl-C stops waiting; the turn goes on)',
      'waiting for the reply in session 3f9c2a1e… 1 s (Ctrl-C stops waiting; the turn goes on)',
      'waiting for the reply in session 3f9c2a1e… 1 min 5 s (Ctrl-C stops waiting; the turn goes on)',
      '',
    ]);
  });

  it('writes nothing to a pipe or a file', () => {
    const { clock, advance, ticking } = manualClock();
    const err = stream(false);
    const end = showWaiting(err.out, 'the reply', clock);
    advance(5000);
    end();
    expect(err.text()).toBe('');
    expect(ticking()).toBe(false);
    expect(showWaiting(undefined, 'the reply', clock)).toBeTypeOf('function');
  });

  it('counts whole seconds, then minutes', () => {
    expect(waitingText('x', 59_999)).toBe('waiting for x… 59 s (Ctrl-C stops waiting; the turn goes on)');
    expect(waitingText('x', 120_000)).toBe('waiting for x… 2 min 0 s (Ctrl-C stops waiting; the turn goes on)');
  });
});
