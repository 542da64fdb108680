import { describe, expect, it } from 'vitest';
import { coalesceRelease } from './coalesce.ts';

const at = (iso: string) => new Date(iso);
const COALESCE_MS = 30_000;

describe('coalesceRelease', () => {
  it('opens a 30-second window with the first event and sends when it closes', () => {
    expect(coalesceRelease(null, at('2026-06-10T09:00:00Z'), false, COALESCE_MS)).toEqual({
      sendAt: at('2026-06-10T09:00:30Z'),
      joinedWindowClosingAt: at('2026-06-10T09:00:30Z'),
      takesWindowClosingAt: null,
      windowClosesAt: at('2026-06-10T09:00:30Z'),
    });
  });

  it('puts an event released within the open window into the same message', () => {
    const result = coalesceRelease(at('2026-06-10T09:00:30Z'), at('2026-06-10T09:00:29.999Z'), false, COALESCE_MS);
    expect(result.sendAt).toEqual(at('2026-06-10T09:00:30Z'));
    expect(result.windowClosesAt).toEqual(at('2026-06-10T09:00:30Z'));
  });

  it('opens a new window for an event released at the moment the last one closes', () => {
    const result = coalesceRelease(at('2026-06-10T09:00:30Z'), at('2026-06-10T09:00:30Z'), false, COALESCE_MS);
    expect(result.sendAt).toEqual(at('2026-06-10T09:01:00Z'));
  });

  it('sends an urgent event at once and takes the open window along', () => {
    expect(coalesceRelease(at('2026-06-10T09:00:30Z'), at('2026-06-10T09:00:10Z'), true, COALESCE_MS)).toEqual({
      sendAt: at('2026-06-10T09:00:10Z'),
      joinedWindowClosingAt: null,
      takesWindowClosingAt: at('2026-06-10T09:00:30Z'),
      windowClosesAt: null,
    });
  });

  it('sends an urgent event at once with nothing to take when no window is open', () => {
    const result = coalesceRelease(at('2026-06-10T09:00:30Z'), at('2026-06-10T09:05:00Z'), true, COALESCE_MS);
    expect(result.sendAt).toEqual(at('2026-06-10T09:05:00Z'));
    expect(result.takesWindowClosingAt).toBeNull();
  });
});
