import { describe, expect, it } from 'vitest';
import { needsCard } from '../src/domain/card-policy.ts';

describe('needsCard', () => {
  it.each([
    ['a write in agent mode', { mode: 'agent', writes: true }, false],
    ['a write in ask mode', { mode: 'ask', writes: true }, true],
    ['a write in plan mode', { mode: 'PLAN', writes: true }, true],
    ['a read in ask mode', { mode: 'ask', writes: false }, false],
    ['the first session started, in agent mode', { mode: 'agent', writes: true, firstStartedByCaller: true }, true],
    ['the first session started, in ask mode (one card)', { mode: 'ask', writes: true, firstStartedByCaller: true }, true],
    ['a change to a session the conversation did not start', { mode: 'agent', writes: true, needsAllow: true }, true],
    ['a later session, in agent mode', { mode: 'agent', writes: true, firstStartedByCaller: false }, false],
  ])('%s → %s', (_label, reasons, expected) => {
    expect(needsCard(reasons)).toBe(expected);
  });
});
