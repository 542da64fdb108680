// FollowMessagesWritten's news over a real nats-server (docs/adr/0050): a replica that listens with the session
// service's own NATS permissions hears message_written as the outbox publishes it and tells its followers the
// session; a follower is told to look at everything when it begins and again when NATS comes back, since what was
// published meanwhile was not heard.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { createLogger } from '@relay/telemetry';
import { startNats, TEST_NATS_USER, type NatsServer } from '@relay/testing';
import { listenForWrittenSignals } from '../src/adapters/bus/bus-written-signals.ts';
import { followMessagesWritten, WrittenSignals, type WrittenNews } from '../src/app/external/messages-written.ts';

const logger = createLogger({ name: 'written-signals-test', level: 'silent' });

let nats: NatsServer;
let session: Bus;
let outbox: Bus;
beforeAll(async () => {
  nats = await startNats();
  session = await connectBus({ url: nats.url, name: 'session', logger, ...nats.credentials('session') });
  outbox = await connectBus({ url: nats.url, name: 'outbox', logger, ...nats.credentials(TEST_NATS_USER) });
});
afterAll(async () => {
  await Promise.all([session?.close(), outbox?.close()]);
  await nats?.stop();
});

/** message_written as the outbox publishes it. */
function publishWritten(sessionId: string): void {
  const event = { eventId: `e-${sessionId}`, occurredAt: new Date(), sessionId, userId: 'u1', messageId: `m-${sessionId}`, role: 'event' };
  outbox.nc.publish(SessionEvents.MESSAGE_WRITTEN.subject, JSON.stringify(SessionEvents.MESSAGE_WRITTEN.codec.toJSON(event)));
}

/** Resolves once the connection answers again after a restart of the server. */
async function reconnected(bus: Bus): Promise<void> {
  for (;;) {
    try {
      return await bus.nc.flush();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

it('tells a follower to look at all, then the sessions written into, then to look at all again once NATS came back', async () => {
  const signals = new WrittenSignals();
  const listening = listenForWrittenSignals(session, signals, logger);
  const following = new AbortController();
  const news = followMessagesWritten(signals, following.signal);
  try {
    await session.nc.flush();
    expect((await news.next()).value).toEqual({ sessionIds: [], lookAll: true } satisfies WrittenNews);

    publishWritten('editor');
    expect((await news.next()).value).toEqual({ sessionIds: ['editor'], lookAll: false });

    await nats.restart();
    expect((await news.next()).value).toEqual({ sessionIds: [], lookAll: true });

    // Heard again once both connections are back.
    await Promise.all([reconnected(session), reconnected(outbox)]);
    publishWritten('ide');
    expect((await news.next()).value).toEqual({ sessionIds: ['ide'], lookAll: false });
  } finally {
    following.abort();
    expect((await news.next()).done).toBe(true);
    listening.stop();
  }
});
