import { describe, expect, it } from 'vitest';
import { countAgentPrompt, grantAgentPrompts, type GuardChange, type LoopGuardStore, type StoredGuard } from '../src/app/loop-guard/agent-prompts.ts';
import { countPrompt, currentGuard, FRESH_GUARD, grantPrompts, isUsedUp, LOOP_GUARD_PROMPTS, type LoopGuard } from '../src/domain/loop-guard/loop-guard.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');

function sendPrompts(guard: LoopGuard, n: number): LoopGuard {
  let current = guard;
  for (let i = 0; i < n; i++) {
    const next = countPrompt(current);
    if (next === undefined) throw new Error(`used up after ${i}`);
    current = next;
  }
  return current;
}

describe('the loop guard rule', () => {
  it('lets 30 prompts through, then is used up', () => {
    const after30 = sendPrompts(FRESH_GUARD, LOOP_GUARD_PROMPTS);
    expect(after30.sent).toBe(30);
    expect(isUsedUp(after30)).toBe(true);
    expect(countPrompt(after30)).toBeUndefined();
  });

  it('Allow grants another 30 from what was sent', () => {
    const granted = grantPrompts(sendPrompts(FRESH_GUARD, 30));
    expect(granted.allowed).toBe(60);
    expect(isUsedUp(sendPrompts(granted, 30))).toBe(true);
  });

  it('resets when the user wrote a message the count has not seen', () => {
    const used = { ...sendPrompts(FRESH_GUARD, 30), userSeq: 5 };
    expect(currentGuard(used, 5)).toBe(used);
    expect(currentGuard(used, 9)).toEqual({ sent: 0, allowed: 30, userSeq: 9 });
  });

  it('starts fresh for a conversation that never sent', () => {
    expect(currentGuard(undefined, 0)).toEqual(FRESH_GUARD);
  });
});

class MemoryGuards implements LoopGuardStore {
  guard: LoopGuard = FRESH_GUARD;
  async change<T>(_sessionId: string, _now: Date, change: (stored: StoredGuard) => GuardChange<T>): Promise<T> {
    const { write, result } = change({ guard: this.guard, latestUserSeq: 0 });
    if (write) this.guard = write;
    return result;
  }
}

describe('countAgentPrompt and grantAgentPrompts', () => {
  it('a dry run counts nothing', async () => {
    const store = new MemoryGuards();
    expect(await countAgentPrompt(store, { sessionId: 's1', dryRun: true }, NOW)).toEqual({ sent: 0, allowed: 30, usedUp: false });
    expect(store.guard.sent).toBe(0);
  });

  it('refuses the 31st prompt with REMOTE_RELAY_LOOP_GUARD and counts nothing more', async () => {
    const store = new MemoryGuards();
    for (let i = 0; i < 30; i++) await countAgentPrompt(store, { sessionId: 's1', dryRun: false }, NOW);
    expect(await countAgentPrompt(store, { sessionId: 's1', dryRun: true }, NOW)).toMatchObject({ usedUp: true });
    await expect(countAgentPrompt(store, { sessionId: 's1', dryRun: false }, NOW)).rejects.toMatchObject({ code: 'REMOTE_RELAY_LOOP_GUARD' });
    expect(store.guard.sent).toBe(30);
    expect(await grantAgentPrompts(store, 's1', NOW)).toEqual({ sent: 30, allowed: 60 });
    expect(await countAgentPrompt(store, { sessionId: 's1', dryRun: false }, NOW)).toEqual({ sent: 31, allowed: 60, usedUp: false });
  });

  // One answer to "may this prompt go?" for a send (dry run, then count) and a schedule's firing (count alone).
  it.each([
    { name: 'the 1st prompt', guard: { sent: 0, allowed: 30 }, goes: true },
    { name: 'the 30th prompt, with 29 of 30 sent', guard: { sent: 29, allowed: 30 }, goes: true },
    { name: 'the 31st prompt, with 30 of 30 sent', guard: { sent: 30, allowed: 30 }, goes: false },
    { name: 'the 60th prompt after one Allow', guard: { sent: 59, allowed: 60 }, goes: true },
    { name: 'the 61st prompt after one Allow', guard: { sent: 60, allowed: 60 }, goes: false },
  ])('$name: a dry run and a count give the same answer', async ({ guard, goes }) => {
    const store = new MemoryGuards();
    store.guard = { ...guard, userSeq: 0 };
    const asked = await countAgentPrompt(store, { sessionId: 's1', dryRun: true }, NOW);
    expect(asked).toEqual({ ...guard, usedUp: !goes });
    const count = countAgentPrompt(store, { sessionId: 's1', dryRun: false }, NOW);
    if (goes) await expect(count).resolves.toEqual({ sent: guard.sent + 1, allowed: guard.allowed, usedUp: false });
    else await expect(count).rejects.toMatchObject({ code: 'REMOTE_RELAY_LOOP_GUARD', details: guard });
    expect(store.guard.sent).toBe(goes ? guard.sent + 1 : guard.sent);
  });

  it('needs a session id', async () => {
    await expect(countAgentPrompt(new MemoryGuards(), { sessionId: '', dryRun: true }, NOW)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});
