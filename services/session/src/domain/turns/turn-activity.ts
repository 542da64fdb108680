/**
 * How often a running turn tells its watchers it still works (relay.session.v1.turn_activity): its reply text and
 * tool calls come many times a second, but watchers count silence in minutes (stalled), so one event a minute of
 * relay time is enough, as for a task's output.
 */

/** Relay time between two turn_activity events of a turn. */
export const TURN_ACTIVITY_ANNOUNCE_MS = 60_000;

/** Whether the turn's activity at `now` is announced, given when it last was (its start counts as one). */
export function announcesActivity(lastAnnouncedAt: Date, now: Date): boolean {
  return now.getTime() - lastAnnouncedAt.getTime() >= TURN_ACTIVITY_ANNOUNCE_MS;
}
