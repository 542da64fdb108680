/**
 * The prompt of a turn whose agent cannot resume its own session of the conversation (another replica or an earlier
 * pod ran the earlier turns, or the agent keeps none): the relay's record of the conversation so far, then the message.
 */
export function withEarlierConversation(earlier: readonly { role: 'user' | 'assistant'; content: string }[], text: string): string {
  if (earlier.length === 0) return text;
  const lines = earlier.map((message) => `${message.role}: ${message.content}`);
  return `[Earlier in this conversation, as the relay recorded it (your own session of it is not on this machine):]\n${lines.join('\n\n')}\n[End of the earlier conversation.]\n\n${text}`;
}
