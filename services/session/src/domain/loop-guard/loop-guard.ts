/**
 * The loop guard (decisions.md, Across relays): a conversation may send 30 prompts to other agents
 * (send, create_session, schedules for another session) before the user is asked on a card; Allow
 * grants another 30; the count resets when the user writes in the conversation. Asks and answered
 * asks neither count nor reset it. Pure: the store hands in the stored state and the user's latest
 * message.
 */

/** Prompts to other agents a conversation may send before the user is asked, and what one Allow grants. */
export const LOOP_GUARD_PROMPTS = 30;

export interface LoopGuard {
  /** Prompts sent to other agents since the user last wrote. */
  sent: number;
  /** How many may be sent before the user is asked again. */
  allowed: number;
  /** The seq of the user's latest message this count has seen. */
  userSeq: number;
}

/** A conversation that never sent a prompt to another agent. */
export const FRESH_GUARD: LoopGuard = { sent: 0, allowed: LOOP_GUARD_PROMPTS, userSeq: 0 };

/** The guard as it stands now: reset when the user wrote a message the stored count has not seen. */
export function currentGuard(stored: LoopGuard | undefined, latestUserSeq: number): LoopGuard {
  const guard = stored ?? FRESH_GUARD;
  if (latestUserSeq > guard.userSeq) return { sent: 0, allowed: LOOP_GUARD_PROMPTS, userSeq: latestUserSeq };
  return guard;
}

/**
 * True when the next prompt may not go until the user allows more: the one rule for a send, a create_session and a
 * schedule's firing, judged before the prompt is counted (with 29 of 30 sent the 30th goes, the 31st waits).
 */
export function isUsedUp(guard: LoopGuard): boolean {
  return guard.sent >= guard.allowed;
}

/** The guard after one more prompt; undefined when it is used up (the prompt may not go). */
export function countPrompt(guard: LoopGuard): LoopGuard | undefined {
  if (isUsedUp(guard)) return undefined;
  return { ...guard, sent: guard.sent + 1 };
}

/** The guard after the user's Allow: another 30 from what was sent. */
export function grantPrompts(guard: LoopGuard): LoopGuard {
  return { ...guard, allowed: guard.sent + LOOP_GUARD_PROMPTS };
}
