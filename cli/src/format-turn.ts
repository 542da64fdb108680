import type { Schemas } from '@relay/user-api';

/** A turn's outcome for the terminal: the reply, why it failed, or what it waits for. */
export function formatTurn(result: Schemas['TurnResult']): string {
  const lines: string[] = [];
  switch (result.status) {
    case 'done':
      lines.push(`Reply${result.reply?.model ? ` (${result.reply.model})` : ''}:`, result.reply?.text ?? '');
      break;
    case 'error':
      lines.push(`The turn failed: ${result.error ?? 'no reason given'}`);
      break;
    case 'stopped':
      lines.push('The turn was stopped.');
      break;
    case 'waiting_for_answer':
      lines.push('The session waits for your answer:');
      for (const question of result.pendingQuestions ?? []) {
        const options = question.options.length > 0 ? ` [${question.options.join(' | ')}]` : '';
        lines.push(`  ${question.question}${options} (card ${question.id})`);
      }
      break;
    default:
      lines.push(`The turn is ${result.status.replaceAll('_', ' ')}; look again with: relay session show ${result.session}`);
  }
  if (result.note) lines.push(result.note);
  return lines.join('\n');
}
