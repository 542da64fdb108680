/**
 * What an approval card says (spec, What you see; update_session): one title naming what it
 * approves, lines with the details the user decides on, and the sentence the agent reads when the
 * user chooses Deny. Pure: the actions pass in what they know after their dry run.
 */
import type { GroupRef, Session } from '@relay/proto/relay/session/v1/session';
import type { UpdateSessionRequest } from '@relay/proto/relay/session/v1/session_service';
import { groupOf } from './answers.ts';
import { quoteStart } from './one-line.ts';

export interface CardText {
  title: string;
  lines: string[];
  /** What was asked, for the refusal when the user does not allow it: "starting a session on desk: …". */
  asked: string;
  /** The sentence that ends a refusal: "Nothing was created." */
  nothing: string;
}

/** create_session: `Start a session on desk: "Review: server/"`, with provider, model, where, group and prompt. */
export function createSessionCard(relay: string, session: Session, text: string): CardText {
  const lines = [joinParts([`Provider: ${session.provider}`, `Model: ${session.model}`, session.effort && `Effort: ${session.effort}`])];
  if (session.repo) lines.push(joinParts([`Repository: ${session.repo}`, session.branch && `Branch: ${session.branch}`]));
  else if (session.cwd) lines.push(`Folder: ${session.cwd}`);
  const group = groupOf(session);
  if (group) lines.push(groupLine(group));
  if (session.mode && session.mode !== 'agent') lines.push(`Mode: ${session.mode}`);
  lines.push(`Prompt: ${quoteStart(text, 200)}`);
  return {
    title: `Start a session on ${relay}: "${session.title}"`,
    lines,
    asked: `starting a session on ${relay}: "${session.title}"`,
    nothing: 'Nothing was created.',
  };
}

/** What a send asks to pass on, for the card of a send. */
export interface SendChoice {
  text: string;
  model?: string;
  effort?: string;
  mode?: string;
  /** "API key" or "subscription" when the send switches a Claude session's billing. */
  billingSwitch: string;
}

/** send: `Send a prompt to "Nightly deploy" on desk`, with the prompt, what it sets and any billing switch. */
export function sendCard(relay: string, session: Session, choice: SendChoice): CardText {
  const lines = [`Prompt: ${quoteStart(choice.text, 200)}`];
  const settings = joinParts([choice.model && `Model: ${choice.model}`, choice.effort && `Effort: ${choice.effort}`, choice.mode && `Mode: ${choice.mode}`]);
  if (settings) lines.push(settings);
  if (choice.billingSwitch) lines.push(`Switches billing to ${choice.billingSwitch}`);
  return {
    title: `Send a prompt to "${session.title}" on ${relay}`,
    lines,
    asked: `sending a prompt to "${session.title}" on ${relay}`,
    nothing: 'Nothing was sent.',
  };
}

/** Settings update_session changes; an unset field is left as it is. */
export type SettingsChange = Partial<
  Pick<UpdateSessionRequest, 'model' | 'effort' | 'mode' | 'autoCompactWindow' | 'title' | 'group' | 'thinkingEnabled' | 'thinkingDisplay' | 'cwd'>
>;

/**
 * update_session: `Change "Review: server/" on desk`, listing the change (`Model: … · Effort: …`,
 * `Group: Release 2.4 (grp_…)`, …). `group` is the group the session would be in after the change,
 * unset when the call names a group that does not exist yet. `grantsAllow` adds what an Allow covers.
 */
export function updateSessionCard(relay: string, title: string, change: SettingsChange, group: GroupRef | undefined, grantsAllow: boolean): CardText {
  const lines: string[] = [];
  const settings = joinParts([change.model && `Model: ${change.model}`, change.effort && `Effort: ${change.effort}`, change.mode && `Mode: ${change.mode}`]);
  if (settings) lines.push(settings);
  if (change.group !== undefined) lines.push(group ? groupLine(group) : `Group: ${change.group} (a new group)`);
  if (change.title !== undefined) lines.push(`Title: "${change.title}"`);
  if (change.cwd !== undefined) lines.push(`Folder: ${change.cwd}`);
  const thinking = joinParts([
    change.autoCompactWindow !== undefined && `Auto-compact window: ${change.autoCompactWindow}`,
    change.thinkingEnabled !== undefined && `Thinking: ${change.thinkingEnabled ? 'on' : 'off'}`,
    change.thinkingDisplay !== undefined && `Thinking shown: ${change.thinkingDisplay}`,
  ]);
  if (thinking) lines.push(thinking);
  if (grantsAllow) lines.push(`Allow also covers this conversation's later changes to sessions it did not start on ${relay}.`);
  return {
    title: `Change "${title}" on ${relay}`,
    lines,
    asked: `changing "${title}" on ${relay}`,
    nothing: 'Nothing was changed.',
  };
}

/** stop: `Stop the turn in "Nightly deploy" on desk`. */
export function stopCard(relay: string, title: string): CardText {
  return { title: `Stop the turn in "${title}" on ${relay}`, lines: [], asked: `stopping the turn in "${title}" on ${relay}`, nothing: 'Nothing was stopped.' };
}

/** archive: `Archive "Nightly deploy" on desk`. */
export function archiveCard(relay: string, title: string): CardText {
  return { title: `Archive "${title}" on ${relay}`, lines: [], asked: `archiving "${title}" on ${relay}`, nothing: 'Nothing was archived.' };
}

/** "Group: Release 2.4 (grp_…)". */
function groupLine(group: GroupRef): string {
  return `Group: ${group.name} (${group.id})`;
}

function joinParts(parts: (string | false | undefined)[]): string {
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join(' · ');
}
