import { sessionRow, statusWords, timeAgo } from './format-sessions.ts';

/**
 * A session as `relay session show` prints it, read leniently from the gateway's JSON: a header
 * line, its group, the messages oldest first, a reply being written and the questions waiting.
 */
export function formatSessionRead(read: Record<string, unknown>, now: Date): string {
  const session = record(read['session']);
  const row = sessionRow(session, now);
  // The read's status (it counts the cards waiting there) over the session's own.
  const state = typeof read['status'] === 'object' && read['status'] !== null ? statusWords(read) : row.state;
  const lines = [`${row.title} (${row.id}) · ${row.model} · ${state}${typeof session['cwd'] === 'string' && session['cwd'] ? ` · ${session['cwd']}` : ''}`];
  const startedBy = record(session['startedBy']);
  if (typeof startedBy['title'] === 'string') lines.push(`via agent · "${startedBy['title']}"`);
  const group = record(read['group']);
  if (typeof group['name'] === 'string') {
    const members = Array.isArray(group['members']) ? group['members'].length : 0;
    lines.push(`Group: ${group['name']} (${String(group['role'] ?? 'member')}), ${members} other member${members === 1 ? '' : 's'}`);
  }
  const messages = Array.isArray(read['messages']) ? read['messages'].map(record) : [];
  if (messages.length === 0) lines.push('', 'No messages yet.');
  for (const message of messages) {
    const model = typeof message['model'] === 'string' && message['model'] ? ` (${message['model']})` : '';
    const provenance = record(message['provenance']);
    const from = typeof provenance['originSessionTitle'] === 'string' ? ` ↗ from ${String(provenance['originRelay'])} · "${provenance['originSessionTitle']}"` : '';
    const role = message['role'] === 'error' ? 'turn failed' : String(message['role'] ?? '?');
    // How far a message sent to the session has come (queued, delivered, failed); replies and error rows have none.
    const delivery = typeof message['delivery'] === 'string' ? ` · ${message['delivery']}` : '';
    lines.push('', `${role}${model}${from} · ${timeAgo(message['createdAt'], now)}${delivery}`);
    for (const line of String(message['text'] ?? '').split('\n')) lines.push(`  ${line}`);
    if (message['truncated'] === true) {
      lines.push(`  … cut at ${String(message['text'] ?? '').length.toLocaleString('en-US')} of ${Number(message['length']).toLocaleString('en-US')} characters; the whole: relay session show ${row.id} --message ${String(message['id'])}`);
    }
  }
  if (typeof read['inFlight'] === 'string' && read['inFlight'] !== '') lines.push('', `Writing: ${read['inFlight']}`);
  const questions = Array.isArray(read['pendingQuestions']) ? read['pendingQuestions'].map(record) : [];
  for (const question of questions) {
    const options = Array.isArray(question['options']) && question['options'].length > 0 ? ` [${question['options'].join(' | ')}]` : '';
    lines.push('', `Waiting for an answer: ${String(question['question'])}${options} (${String(question['kind'])} ${String(question['id'])})`);
  }
  return lines.join('\n');
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
