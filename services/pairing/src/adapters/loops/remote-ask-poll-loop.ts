/**
 * The poll loop of this relay's asks on paired relays: takes the asks due for a poll (leased, so replicas share
 * them), polls each, and stores when to look again: 5 s while its relay answers, 30 s while it does not. An
 * answered or dismissed ask is passed to the asking conversation, then no longer polled.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { LeasedDueLoop } from './leased-due-loop.ts';
import { pollDueAsk } from '../../app/remote-asks.ts';
import type { AskPollIntervals, PolledAsk } from '../../domain/remote-asks.ts';
import type { RemoteAnswerSink, RemoteAsksLine, RemoteAskStore } from '../../app/remote-ports.ts';

/** The shortest pause between looks for due asks (relay time); an ask kept here nudges the loop. */
const LOOK_MS = 1_000;

export class RemoteAskPollLoop extends LeasedDueLoop<PolledAsk> {
  constructor(deps: { asks: RemoteAskStore; line: RemoteAsksLine; sink: RemoteAnswerSink; clock: Clock; logger: Logger; intervals: AskPollIntervals }) {
    super({
      rows: deps.asks,
      work: (ask) =>
        pollDueAsk(ask, deps).catch((error: unknown) => {
          deps.logger.error({ err: error, relay: ask.relay }, 'polling a remote ask failed; it is polled again');
        }),
      clock: deps.clock,
      logger: deps.logger,
      lookMs: LOOK_MS,
      passFailed: 'remote ask poll pass failed; trying again',
    });
  }
}
