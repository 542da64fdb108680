/**
 * RemoteAsksLine over HTTP: a paired relay's /relay/v1/asks routes, called with this relay's token for it. The
 * asking conversation is named by its id here; that relay keeps it as the asker of the asks this relay opens.
 */
import { isAppError } from '@relay/errors';
import { z } from 'zod';
import type { NewRemoteAsk, RemoteAskView } from '../../domain/remote-asks.ts';
import type { RemoteAsksLine } from '../../app/remote-ports.ts';
import { callPairedRelay, type PairedRelayAddresses } from './remote-relay-call.ts';

const askBody = z.object({
  id: z.string(),
  aboutSessionId: z.string(),
  question: z.string(),
  options: z.array(z.string()),
  status: z.string(),
  answer: z.string(),
  choice: z.string(),
  via: z.string(),
  createdAt: z.coerce.date().nullish(),
  endedAt: z.coerce.date().nullish(),
});
const oneAsk = z.object({ ask: askBody });
const manyAsks = z.object({ asks: z.array(askBody) });

function toView(ask: z.infer<typeof askBody>): RemoteAskView {
  return { ...ask, createdAt: ask.createdAt ?? undefined, endedAt: ask.endedAt ?? undefined };
}

const asker = (askingSessionId: string) => `asking_session_id=${encodeURIComponent(askingSessionId)}`;

export class RemoteAsksClient implements RemoteAsksLine {
  constructor(private readonly relays: PairedRelayAddresses) {}

  async open(relay: string, ask: NewRemoteAsk): Promise<RemoteAskView> {
    const body = {
      askingSessionId: ask.askingSessionId,
      session: ask.aboutSessionId,
      question: ask.question,
      options: ask.options,
      recommendation: ask.recommendation,
      detail: ask.detail,
      dryRun: ask.dryRun,
    };
    return toView(oneAsk.parse(await callPairedRelay(this.relays, relay, 'POST', '/relay/v1/asks', body)).ask);
  }

  async list(relay: string, askingSessionId: string): Promise<RemoteAskView[]> {
    return manyAsks.parse(await callPairedRelay(this.relays, relay, 'GET', `/relay/v1/asks?${asker(askingSessionId)}`)).asks.map(toView);
  }

  async withdraw(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView> {
    return toView(oneAsk.parse(await callPairedRelay(this.relays, relay, 'DELETE', `/relay/v1/asks/${encodeURIComponent(id)}?${asker(askingSessionId)}`)).ask);
  }

  async poll(relay: string, askingSessionId: string, id: string): Promise<RemoteAskView | undefined> {
    try {
      return toView(oneAsk.parse(await callPairedRelay(this.relays, relay, 'GET', `/relay/v1/asks/${encodeURIComponent(id)}?${asker(askingSessionId)}`)).ask);
    } catch (error) {
      if (isAppError(error) && error.code === 'REMOTE_RELAY_NOT_FOUND') throw error;
      // No answer, a refused token or an answer we cannot read: polled again in 30 s.
      return undefined;
    }
  }
}
