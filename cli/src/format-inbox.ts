import type { Schemas } from '@relay/user-api';

/** The Inbox as text: each pending ask and card with its id, the session it shows in, and how to answer it. */
export function formatInbox(inbox: Schemas['Inbox']): string {
  if (inbox.asks.length === 0 && inbox.cards.length === 0) return 'Inbox: nothing waits for you.';
  const lines: string[] = [];
  for (const card of inbox.cards) {
    lines.push(`${card.id}  ${card.kind === 'approval' ? 'approve' : 'question'} in session ${card.sessionId}: ${card.title}`);
    for (const line of card.lines) lines.push(`    ${line}`);
    if (card.options.length > 0) lines.push(`    options: ${card.options.join(' | ')}`);
    lines.push(
      card.kind === 'approval'
        ? `    relay allow ${card.id}  ·  relay deny ${card.id}`
        : `    relay answer ${card.id} TEXT [--choice C]  ·  relay answer ${card.id} --dismiss`,
    );
  }
  for (const ask of inbox.asks) {
    lines.push(`${ask.id}  ask in session ${ask.sessionId}: ${ask.question}`);
    if (ask.detail) lines.push(`    ${ask.detail}`);
    if (ask.options.length > 0) lines.push(`    options: ${ask.options.join(' | ')}${ask.recommendation ? ` (recommended: ${ask.recommendation})` : ''}`);
    lines.push(`    relay answer ${ask.id} TEXT [--choice C]  ·  relay answer ${ask.id} --dismiss`);
  }
  if (inbox.more) lines.push('More waits than shows here: the newest 500 cards and 500 asks do; older ones show as you decide these.');
  return lines.join('\n');
}
