/**
 * The pure delivery rules of subscriptions: when an event a watcher's subscriptions took reaches
 * the watcher, and the text of the message it comes in. No I/O; time comes in as `now`.
 *
 * How the service uses it: on each matched event call `planRelease`. 'release' → keep the event
 * for its message at `delivery.deliverAt` and persist `delivery.watcherState`; an urgent release
 * takes the events waiting in the window it names. 'hold' → keep it with `releaseAt` and `heldBy`,
 * and call `planRelease` again at `releaseAt`. 'hold_while_waiting' → call it again when the
 * watcher's send/create_session/wait for that turn returns. 'drop' → forget it. When a message
 * goes, render it with `renderWakeUpMessage`, persist `recordDelivery(...)`, and set
 * `lastDeliveredAt` of each subscription whose non-urgent events it carried.
 *
 * Choices made where the spec and decisions.md are silent:
 * - Quiet hours and digests are judged from the event's own instant (`occurredAt`), so a plan made
 *   again later, after a restart, or for a replayed event, gives the same answer; a release time
 *   already past means "now". A held event's message text depends on what held it last: a digest
 *   that ends after the quiet window is a digest; a digest moved to the window's end is quiet-held.
 * - `lastDeliveredAt` counts only messages that carried the subscription's non-urgent events:
 *   an urgent row does not restart the digest's N minutes.
 * - Held events have waited already: what a quiet window's end or a digest releases goes at that
 *   instant in one message, not 30 s later, and takes along the events waiting in the open 30-second
 *   window (those that arrived within the 30 s before). Only events no option held open or join a
 *   window. An urgent event likewise takes only the open window's events along, not those waiting
 *   for a cap slot or held by a digest or quiet hours.
 * - `nextDeliveryAt` of a subscription is when its held events' message comes: their release, or
 *   the cap slot when the hourly cap (as its log stands) blocks that instant; `heldCount` includes
 *   released events of the subscription still waiting for a cap slot.
 * - The hourly cap is checked when a message would go (the window's close, or a hold's release).
 *   A blocked message goes at the next cap slot regardless of the count (that is the cap's
 *   digest); a message blocked
 *   less than 10 min after the previous slot keeps to that slot's grid, a later one starts a new
 *   series at its own T + 10 min. When the count is below 20 again messages go as usual.
 * - Heartbeats: grid times inside quiet hours are skipped (not moved), and a heartbeat event whose
 *   instant lies in a quiet window is dropped.
 * - A turn_end of the watcher's own prompt that it did not wait for has reason
 *   'own_prompt_not_waited'; one that ends a once subscription, 'ends_once'. Both keep to the
 *   subscription's digest and quiet hours. `endsSubscriptionIds` lists the once subscriptions
 *   that took the event (they end at once; the event comes when their options let it).
 * - quiet_hours: `HH:MM` is strict (two digits each, "7:00" is refused); a missing tz is refused
 *   with `quiet_hours tz is missing: name an IANA time zone (for example …)`; fields other than
 *   from, to, tz with a value are refused (`quiet_hours takes from, to and tz only, not: days`);
 *   a non-object with `quiet_hours must be an object with from, to and tz (for example …)`. Zone
 *   names are matched case-insensitively; a link (US/Eastern, Etc/UTC) is returned as the zone it
 *   links to (America/New_York, UTC); offsets (UTC+7, +07:00) and "local" are refused.
 *
 * Rows the spec does not show (`[relay event] ` and, from a paired relay, `<relay> · ` first):
 * - `session "T" (3f9c…): turn_end (stopped)`; with a reply or failure text: `turn_end (error) "…"`
 * - `session "T" (3f9c…): question_asked "Ship tonight or wait?" (question_id q_7d2a91)`
 * - `question_answered: question ask_7d2c answered "Wait" (chose "Wait"; via desk)`;
 *   dismissed: `question_answered: question ask_7d2c dismissed (via desk)`
 * - `session "T" (3f9c…): error "…"`; `subagent_finished "<description>"`
 * - `session "T" (3f9c…): task_failed "npm test" (exit 1; task_id b7k2m9q4)`, likewise
 *   task_finished (`no exit code` when none) and `task_started "npm test" (task_id b7k2m9q4)`
 * - `session "T" (3f9c…): stalled: no output for 15 min[ from task "npm test" (task_id b7k2m9q4)]`
 * - `all_idle: no turn or task is running in the watched session (subscription sub_…)` for one
 * - `heartbeat: 2 watched sessions: session "A" (3f9c…) running_turn, session "B" (a12b…) idle
 *   (subscription sub_…)`
 * - `link_lost: the relay does not answer; it keeps the events for this subscription and they come
 *   when it answers again`; `link_restored: the relay answers again; 12 events replayed, 3 of them
 *   held by digest or quiet hours and coming later`
 * - Quoted text (replies, questions, errors, descriptions): whitespace collapsed to one line, at
 *   most 120 characters, a longer one cut after its last space (if that keeps 60) and ended with
 *   "…", as in the spec's `"Found 4 places without input checks: …"`. Ids the agent acts on
 *   (question_id, task_id, subscription) are shown whole; session ids as their first 4 characters.
 * - Digest of line: clauses joined by "; " — `subscription sub_a every 30 min`, one per digest, and
 *   `past 20 wake-ups an hour, every 10 min` for the hourly cap's digest, whose count is the whole
 *   message. Message order: header, rows not held, Digest of line and its rows, then per quiet
 *   window its Held during quiet hours line (`1 event` in the singular) and its rows.
 */
export { nextHeartbeatAt } from './digest.ts';
export * from './model.ts';
export { heldDeliveryAt, isUrgent, planRelease, recordDelivery } from './plan.ts';
export { parseQuietHours, quietWindowAt } from './quiet-hours.ts';
export { renderEventRow, renderWakeUpMessage } from './render.ts';
