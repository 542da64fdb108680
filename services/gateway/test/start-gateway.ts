/**
 * The real gateway app, listening on a loopback port, in front of fake owners served over gRPC.
 */
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/adapters/http/build-app.ts';
import { createServiceClients, type ServiceClients } from '../src/adapters/grpc/service-clients.ts';
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
): ServiceClients {
  return createServiceClients({ session: owners.sessionAddress, pairing: owners.pairingAddress, question: questionAddress }, gatewayAuth);
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
