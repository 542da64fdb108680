import { credentials, experimental, Metadata } from '@grpc/grpc-js';
import { HealthCheckResponse_ServingStatus as ServingStatus, HealthClient } from '@relay/proto/grpc/health/v1/health';
import type { GrpcAuth } from './grpc-auth.ts';
import { WITHOUT_CHANNELZ } from './channelz.ts';

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
      client.check({ service }, new Metadata(), { deadline: Date.now() + timeoutMs }, (error, response) =>
        resolve(!error && response.status === ServingStatus.SERVING),
      );
    });
  } finally {
    client.close();
  }
}
