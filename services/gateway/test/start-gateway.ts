/**
 * The real gateway app, listening on a loopback port, in front of fake owners served over gRPC.
 */
import { PairingServiceClient, PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { QuestionServiceClient, QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { createClient, promiseClient } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/adapters/http/build-app.ts';
import { DEADLINE_MS, type PairingClient, type QuestionClient, type SessionClient } from '../src/app/ports.ts';
import { startFakeOwners, type FakeOwners } from './start-fake-owners.ts';
import { gatewayAuth } from './fake-credentials.ts';

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  url: string;
  relayName: string;
  owners: FakeOwners;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** The gateway's clients of the fake owners, as main.ts makes them (the question service at `questionAddress` when given). */
export function fakeOwnerClients(
  owners: Pick<FakeOwners, 'sessionAddress' | 'pairingAddress' | 'questionAddress'>,
  questionAddress = owners.questionAddress,
): { sessions: SessionClient; pairing: PairingClient; questions: QuestionClient; close(): void } {
  const session = createClient(SessionServiceClient, owners.sessionAddress, gatewayAuth);
  const pairing = createClient(PairingServiceClient, owners.pairingAddress, gatewayAuth);
  const question = createClient(QuestionServiceClient, questionAddress, gatewayAuth);
  return {
    sessions: promiseClient(SessionServiceService, session, { deadlineMs: DEADLINE_MS }),
    pairing: promiseClient(PairingServiceService, pairing, { deadlineMs: DEADLINE_MS }),
    questions: promiseClient(QuestionServiceService, question, { deadlineMs: DEADLINE_MS }),
    close() {
      session.close();
      pairing.close();
      question.close();
    },
  };
}

/** Starts fake owners and the gateway in front of them; `close` stops both. withoutPublicUrl: as without RELAY_PUBLIC_URL (no openUrl). */
export async function startGateway(relayName = 'desk', options: { withoutPublicUrl?: boolean } = {}): Promise<TestGateway> {
  const openUrlBase = options.withoutPublicUrl ? undefined : 'https://desk.example.com';
  const logger = createLogger({ name: 'gateway-test', level: 'silent' });
  const owners = await startFakeOwners(logger);
  const { close: closeClients, ...clients } = fakeOwnerClients(owners);
  const app = buildApp({ relayName, publicUrl: 'https://desk.example.com', openUrlBase, ...clients, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the gateway is not listening on a TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    relayName,
    owners,
    app,
    async close() {
      await app.close();
      closeClients();
      await owners.stop();
    },
  };
}
