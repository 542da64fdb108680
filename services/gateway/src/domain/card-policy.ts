/**
 * When a call needs the user's Allow on an approval card (spec, When you are asked; decisions.md,
 * Relay modes): before the first session an agent starts in a conversation (every mode), before
 * every write while the conversation is in the ask or plan mode, and before update_session changes
 * a session its conversation did not start. One card covers every reason a call has.
 */

/** The relay modes in which every write action asks first. */
export const ASKING_MODES: readonly string[] = ['ask', 'plan'];

export interface CardReasons {
  /** The calling conversation's relay mode. */
  mode: string;
  /** The call writes (send, create_session, update_session, stop, archive, …). */
  writes: boolean;
  /** create_session: the first session this conversation's agent starts. */
  firstStartedByCaller?: boolean;
  /** update_session: the session was not started by this conversation and no Allow covers it yet. */
  needsAllow?: boolean;
}

/** True when the call must wait for the user's Allow before it changes anything. */
export function needsCard(reasons: CardReasons): boolean {
  if (reasons.firstStartedByCaller || reasons.needsAllow) return true;
  return reasons.writes && ASKING_MODES.includes(reasons.mode.trim().toLowerCase());
}
