/**
 * The real gateway app, listening on a loopback port, in front of fake owners served over gRPC.
 */
import { PairingServiceClient } from '@relay/proto/relay/pairing/v1/pairing_service';
import { QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { createClient } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { GrpcPairingOwner } from '../src/grpc/grpc-pairing-owner.ts';
import { GrpcQuestionOwner } from '../src/grpc/grpc-question-owner.ts';
import { GrpcSessionOwner } from '../src/grpc/grpc-session-owner.ts';
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

/** Starts fake owners and the gateway in front of them; `close` stops both. withoutPublicUrl: as without RELAY_PUBLIC_URL (no openUrl). */
export async function startGateway(relayName = 'desk', options: { withoutPublicUrl?: boolean } = {}): Promise<TestGateway> {
  const openUrlBase = options.withoutPublicUrl ? undefined : 'https://desk.example.com';
  const logger = createLogger({ name: 'gateway-test', level: 'silent' });
  const owners = await startFakeOwners(logger);
  const sessionClient = createClient(SessionServiceClient, owners.sessionAddress, gatewayAuth);
  const pairingClient = createClient(PairingServiceClient, owners.pairingAddress, gatewayAuth);
  const questionClient = createClient(QuestionServiceClient, owners.questionAddress, gatewayAuth);
  const app = buildApp({
    relayName,
    publicUrl: 'https://desk.example.com',
    openUrlBase,
    sessions: new GrpcSessionOwner(sessionClient),
    pairing: new GrpcPairingOwner(pairingClient),
    questions: new GrpcQuestionOwner(questionClient),
    logger,
  });
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
      sessionClient.close();
      pairingClient.close();
      questionClient.close();
      await owners.stop();
    },
  };
}
