/**
 * The loop guard's words (decisions.md, Across relays): a conversation may send 30 prompts to other agents (send,
 * create_session) before the user is asked on a card; Allow grants another 30; Deny, or no running turn to ask in,
 * refuses with REMOTE_RELAY_LOOP_GUARD. The count is the session service's (app/relay-tool/pass-loop-guard.ts).
 */
import type { AppError } from '@relay/errors';
import type { CardText } from './card-text.ts';
import { toolError } from './errors.ts';

/** The card asking the user for more, after `sent` prompts; `nothing` ends a refusal. */
export function loopGuardCard(sent: number, nothing: string): CardText {
  return {
    title: 'Let the agent keep prompting other agents?',
    lines: [`This conversation has sent ${sent} prompts to other agents since you last wrote here.`, 'Allow lets it send 30 more.'],
    asked: 'more prompts to other agents',
    nothing,
  };
}

/** The refusal when the user did not allow more (`why`: the card's refusal sentence). */
export function loopGuardRefusal(sent: number, why: string, nothing: string): AppError {
  return toolError(
    'REMOTE_RELAY_LOOP_GUARD',
    `Loop guard: this conversation has sent ${sent} prompts to other agents since the user last wrote, and the user did not allow more (${why}) ${nothing} Stop prompting other agents and tell the user.`,
    { sent },
  );
}
