import { describe, expect, it } from 'vitest';
import { planWait } from '../src/domain/wait-seconds.ts';

describe('planWait', () => {
  it("waits the relay's longest wait when wait_seconds is left out", () => {
    expect(planWait('send', undefined, 600)).toEqual({ waitSeconds: 600 });
  });

  it.each([0, 1, 300, 600])('waits %i s as asked, up to the longest wait, without a note', (requested) => {
    expect(planWait('wait', requested, 600)).toEqual({ waitSeconds: requested });
  });

  it('caps a longer wait and says so in a note', () => {
    const plan = planWait('wait', 900, 600);
    expect(plan.waitSeconds).toBe(600);
    expect(plan.note).toContain('wait_seconds 900');
    expect(plan.note).toContain('600 s');
  });

  it('follows the setting, whatever it is', () => {
    expect(planWait('send', 3600, 120)).toMatchObject({ waitSeconds: 120 });
    expect(planWait('send', undefined, 3600)).toEqual({ waitSeconds: 3600 });
  });

  it('refuses a negative wait', () => {
    expect(() => planWait('send', -1, 600)).toThrow(expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT' }));
  });
});
