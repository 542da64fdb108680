import { credentials, experimental, makeGenericClientConstructor, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { GrpcAuth } from './grpc-auth.ts';
import { WITHOUT_CHANNELZ } from './channelz.ts';

const HealthClient = makeGenericClientConstructor(healthService as unknown as ServiceDefinition, 'grpc.health.v1.Health');

/**
 * True when the server at `host:port` reports SERVING for `service` ('' = the whole server); false on any failure.
 * Health needs no credentials, but a server on mutual TLS speaks only TLS: give `auth` to check one.
 */
export async function checkHealth(address: string, service = '', timeoutMs = 2000, auth?: GrpcAuth): Promise<boolean> {
  const channel =
    auth?.kind === 'tls' ? experimental.createCertificateProviderChannelCredentials(auth.certificates, auth.certificates) : credentials.createInsecure();
  const client = new HealthClient(address, channel, WITHOUT_CHANNELZ);
  try {
    return await new Promise<boolean>((resolve) => {
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (value: { service: string }) => healthService.Check!.requestSerialize(value),
        (buffer: Buffer) => healthService.Check!.responseDeserialize(buffer) as { status?: string },
        { service },
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, response?: { status?: string }) => resolve(!error && response?.status === 'SERVING'),
      );
    });
  } finally {
    client.close();
  }
}
