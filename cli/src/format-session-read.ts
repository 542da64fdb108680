import type { Schemas } from '@relay/user-api';
import { sessionRow, statusWords, timeAgo } from './format-sessions.ts';

/**
 * A session as `relay session show` prints it: a header line, its group, the messages oldest first, a reply being
 * written and the questions waiting.
 */
export function formatSessionRead(read: Schemas['SessionRead'], now: Date): string {
  const { session } = read;
  const row = sessionRow(session, now);
  // The read's status (it counts the cards waiting there) over the session's own.
  const state = statusWords(read.status, read.state);
  const lines = [`${row.title} (${row.id}) · ${row.model} · ${state}${session.cwd ? ` · ${session.cwd}` : ''}`];
  if (session.startedBy !== undefined) lines.push(`via agent · "${session.startedBy.title}"`);
  if (read.group !== undefined) {
    const members = read.group.members.length;
    lines.push(`Group: ${read.group.name} (${read.group.role || 'member'}), ${members} other member${members === 1 ? '' : 's'}`);
  }
  if (read.messages.length === 0) lines.push('', 'No messages yet.');
  for (const message of read.messages) {
    const model = message.model ? ` (${message.model})` : '';
    const from = message.provenance ? ` ↗ from ${message.provenance.originRelay} · "${message.provenance.originSessionTitle}"` : '';
    const role = message.role === 'error' ? 'turn failed' : message.role;
    // How far a message sent to the session has come (queued, delivered, failed); replies and error rows have none.
    const delivery = message.delivery === undefined ? '' : ` · ${message.delivery}`;
    lines.push('', `${role}${model}${from} · ${timeAgo(message.createdAt, now)}${delivery}`);
    for (const line of message.text.split('\n')) lines.push(`  ${line}`);
    if (message.truncated) {
      lines.push(
        `  … cut at ${message.text.length.toLocaleString('en-US')} of ${(message.length ?? 0).toLocaleString('en-US')} characters; the whole: relay session show ${row.id} --message ${message.id}`,
      );
    }
  }
  if (read.inFlight) lines.push('', `Writing: ${read.inFlight}`);
  for (const question of read.pendingQuestions) {
    const options = question.options.length > 0 ? ` [${question.options.join(' | ')}]` : '';
    lines.push('', `Waiting for an answer: ${question.question}${options} (${question.kind} ${question.id})`);
  }
  return lines.join('\n');
}
