import { loadClientConfig } from '../config.ts';
import { formatInbox } from '../format-inbox.ts';
import { GatewayApi } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';

/** `relay inbox`: the pending asks and cards across the user's sessions. */
export async function runInbox(options: { json: boolean }, io: ClientIo): Promise<number> {
  const inbox = await apiFor(io).inbox();
  io.out.write(options.json ? `${JSON.stringify(inbox, null, 2)}\n` : `${formatInbox(inbox)}\n`);
  return 0;
}

/** `relay answer ID …`: answers or dismisses an ask (ask_…) or a question card. */
export async function runAnswer(options: { id: string; answer: string; choice?: string; dismiss: boolean; json: boolean }, io: ClientIo): Promise<number> {
  const api = apiFor(io);
  const decision = options.dismiss ? 'dismiss' : 'answer';
  const decided = options.id.startsWith('ask_')
    ? await api.answerAsk(options.id, {
        decision,
        ...(options.answer ? { answer: options.answer } : {}),
        ...(options.choice ? { choice: options.choice } : {}),
      })
    : await api.decideCard(options.id, {
        decision,
        ...(options.answer ? { answer: options.answer } : {}),
        ...(options.choice ? { choices: [options.choice] } : {}),
      });
  io.out.write(options.json ? `${JSON.stringify(decided, null, 2)}\n` : `${options.id} ${options.dismiss ? 'dismissed' : 'answered'}.\n`);
  return 0;
}

/** `relay allow CARD` / `relay deny CARD`: decides an approval card. */
export async function runDecide(options: { id: string; decision: 'allow' | 'deny'; json: boolean }, io: ClientIo): Promise<number> {
  const decided = await apiFor(io).decideCard(options.id, { decision: options.decision });
  io.out.write(options.json ? `${JSON.stringify(decided, null, 2)}\n` : `${options.id} ${options.decision === 'allow' ? 'allowed' : 'denied'}.\n`);
  return 0;
}

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}
