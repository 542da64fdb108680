import type { Relay } from './relay.ts';

/**
 * Waits for a script turn to end, allowing on the owner's side every card the session raises meanwhile: a `task`
 * step runs its command only on the owner's Allow.
 */
export async function finishAllowingCommands(relay: Relay, sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/cards?session=${sessionId}&pending=1`);
    // A command's card is a question with the options Allow and Deny: the owner answers Allow.
    for (const card of body.cards ?? []) {
      const decision = card.options?.includes('Allow') ? { decision: 'answer', choices: ['Allow'] } : { decision: 'allow' };
      await relay.api('POST', `/api/v1/cards/${card.id}`, decision);
    }
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=1`);
    if (result.status !== 200) throw new Error(`wait answered ${result.status}: ${JSON.stringify(result.body)}`);
    if (!['queued', 'running', 'waiting_for_answer'].includes(result.body.status)) return result.body;
  }
}
