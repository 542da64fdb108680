/**
 * Whether a task's call may be made again by the gateway replica that takes it over from one that stopped
 * (docs/adr/0042-mcp-tasks-taken-over.md): a read or a wait makes nothing; `send` and `create_session` on this relay make
 * their effects once (app/relay-tool/made-once.ts) after cards keyed by the call; any other call, and one caught between
 * an effect's start and its record, may or may not have taken effect, and ends saying so.
 */
import { namesThisRelay } from './relay-name.ts';

/**
 * The actions that make nothing, a read or a wait: another replica runs them again. `send` and `create_session` on this
 * relay make their one effect once (made-once.ts) after cards keyed by the call. Another action, or a call to a paired
 * relay that writes, may have taken effect there: its task ends saying so.
 */
export const READS: ReadonlySet<string> = new Set([
  'list_questions',
  'list_relays',
  'list_schedules',
  'list_sessions',
  'list_subscriptions',
  'read_session',
  'read_task_output',
  'relay_info',
  'usage',
  'wait',
]);
const MADE_ONCE_HERE: ReadonlySet<string> = new Set(['send', 'create_session']);

/** What each effect made once did, as a task that stopped while it was under way says. */
const EFFECT_PHRASES: Readonly<Record<string, string>> = {
  send: 'sent its message',
  create_session: 'created its session',
  count_agent_prompt: 'counted its prompt against the loop guard',
};

/** A task's progress: each effect begun, with its outcome once made. */
export type Effects = Record<string, { outcome?: unknown }>;

/**
 * Why the call `input` may not be made again by another replica, said for its client; undefined when it may: a read or
 * wait, or an action that makes its effects once here, none of them begun and not recorded made.
 */
export function whyNotMadeAgain(input: unknown, effects: Effects, relayName: string): string | undefined {
  const stopped = 'The gateway running this task stopped before it ended';
  const check = 'Check what stands (read_session, list_sessions, relay inbox) before making the call again.';
  const { action, relay } = typeof input === 'object' && input !== null ? (input as { action?: unknown; relay?: unknown }) : {};
  if (typeof action !== 'string') return `${stopped}, and the task does not say what call it ran: it may or may not have taken effect. ${check}`;
  const madeOnceHere = MADE_ONCE_HERE.has(action) && namesThisRelay(relay, relayName);
  if (!READS.has(action) && !madeOnceHere) {
    return `${stopped}, and ${action} is not made again by another gateway: it may or may not have taken effect. ${check} A card it raised stays in the Inbox; the same call made again finds its decision.`;
  }
  const begun = Object.entries(effects).find(([, effect]) => !('outcome' in effect));
  if (begun !== undefined) {
    const phrase = EFFECT_PHRASES[begun[0]] ?? `made its ${begun[0]}`;
    return `${stopped}, at the moment it ${phrase}: that may or may not have taken effect, so no other gateway makes it again. ${check}`;
  }
  return undefined;
}
