/**
 * The relay's NATS authorization, against a real nats-server started with it (@relay/testing's startNats):
 * no anonymous or wrong-password connection, and each service's user limited to its own streams, durables
 * and inbox.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { createLogger } from '@relay/telemetry';
import { startNats, type NatsServer } from '@relay/testing';
import { connectBus, consume, ensureStream, type Bus, type BusMessage } from '@relay/bus';
import { rawContract } from './fixtures/raw-contract.ts';

const logger = createLogger({ name: 'permissions-test', level: 'silent' });
let nats: NatsServer;
let session: Bus;
let question: Bus;

beforeAll(async () => {
  nats = await startNats();
  session = await connectBus({ url: nats.url, name: 'session', logger, ...nats.credentials('session') });
  question = await connectBus({ url: nats.url, name: 'question', logger, ...nats.credentials('question') });
  await ensureStream(session, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
});

afterAll(async () => {
  await question?.close();
  await session?.close();
  await nats?.stop();
});

describe('NATS authentication', () => {
  it('refuses a connection without credentials', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
  });

  it('refuses a service user with a wrong password', async () => {
    await expect(connectBus({ url: nats.url, name: 'session', logger, user: 'session', password: 'not-its-password' })).rejects.toThrow(
      /Authorization Violation/i,
    );
  });
});

describe('NATS permissions', () => {
  it('lets a service publish to its own stream and another consume it with its own durable, acks included', async () => {
    const seen: BusMessage[] = [];
    const consumer = await consume(question, {
      contracts: [rawContract('relay.session.v1.archived', 'SESSION_EVENTS')],
      durable: 'question-session-archived',
      logger,
      handler: async (message) => void seen.push(message),
    });
    try {
      await session.js.publish('relay.session.v1.archived', JSON.stringify({ sessionId: 's-1' }), { msgID: 'archived-1' });
      await vi.waitFor(() => expect(seen.map((message) => message.data)).toEqual([{ sessionId: 's-1' }]));
      // The ack went through: nothing waits for one, nothing is redelivered.
      await vi.waitFor(async () => expect((await question.jsm.consumers.info('SESSION_EVENTS', 'question-session-archived')).num_ack_pending).toBe(0));
    } finally {
      await consumer.stop();
    }
  });

  it("refuses a service publishing to another service's subject", async () => {
    await expect(question.js.publish('relay.session.v1.archived', '{}', { msgID: 'forged-1' })).rejects.toThrow(
      /Permissions Violation for Publish to "relay.session.v1.archived"/i,
    );
  });

  it("refuses a service changing another service's stream", async () => {
    await expect(ensureStream(question, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>', 'relay.elsewhere.v1.>'] })).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS.API.STREAM.UPDATE.SESSION_EVENTS"/i,
    );
  });

  it("refuses a service consuming with another service's durable", async () => {
    await expect(
      consume(question, {
        contracts: [rawContract('relay.session.v1.archived', 'SESSION_EVENTS')],
        wholeStream: { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] },
        durable: 'subscription-session-events',
        logger,
        handler: async () => undefined,
      }),
    ).rejects.toThrow(/Permissions Violation/i);
  });

  it("refuses a service reading another service's inbox", async () => {
    const subscription = question.nc.subscribe('_INBOX.session.>');
    await expect(
      (async () => {
        for await (const _message of subscription) return 'delivered';
        return 'closed';
      })(),
    ).rejects.toThrow(/Permissions Violation for Subscription to "_INBOX.session.>"/i);
  });
});
