import { describe, expect, it } from 'vitest';
import { InFlightCalls } from '../src/adapters/http/mcp/in-flight-calls.ts';

describe('InFlightCalls', () => {
  it("cancels the caller's own call by request id", () => {
    const calls = new InFlightCalls();
    const controller = new AbortController();
    calls.register('s1', 7, controller);
    calls.cancel('s1', 7);
    expect(controller.signal.aborted).toBe(true);
  });

  it("never reaches another agent's call, nor a request id of another type", () => {
    const calls = new InFlightCalls();
    const controller = new AbortController();
    calls.register('s1', 7, controller);
    calls.cancel('s2', 7);
    calls.cancel('s1', '7');
    expect(controller.signal.aborted).toBe(false);
  });

  it('forgets a call that ended', () => {
    const calls = new InFlightCalls();
    const controller = new AbortController();
    const forget = calls.register('s1', 'a', controller);
    forget();
    calls.cancel('s1', 'a');
    expect(controller.signal.aborted).toBe(false);
  });
});
