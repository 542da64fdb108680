import { describe, expect, it } from 'vitest';
import { databaseUrlFor, serviceEnv, type ServicePlanInput } from '../src/service-plan.ts';

const input: ServicePlanInput = {
  grpcPorts: { session: 50051, subscription: 50052, scheduler: 50053, question: 50054, pairing: 40000 },
  gatewayPort: 7420,
  gatewayHost: '127.0.0.1',
  publicUrl: 'http://127.0.0.1:7420',
  natsUrl: 'nats://127.0.0.1:4222',
  databaseServerUrl: 'postgresql://postgres:s%40cret@127.0.0.1:54329/postgres?sslmode=disable',
  relayName: 'build-box',
  agentSessions: 'on',
  logLevel: 'info',
  clockEpochMs: 1_800_000_000_000,
};

describe('databaseUrlFor', () => {
  it('replaces only the database name', () => {
    expect(databaseUrlFor(input.databaseServerUrl, 'relay_session')).toBe(
      'postgresql://postgres:s%40cret@127.0.0.1:54329/relay_session?sslmode=disable',
    );
    expect(databaseUrlFor('postgres://db.example:5432', 'relay_pairing')).toBe('postgres://db.example:5432/relay_pairing');
  });
});

describe('serviceEnv', () => {
  it('gives a stateful service its own database, its gRPC port and everyone’s addresses', () => {
    const env = serviceEnv('pairing', input);
    expect(env).toMatchObject({
      DATABASE_URL: 'postgresql://postgres:s%40cret@127.0.0.1:54329/relay_pairing?sslmode=disable',
      GRPC_PORT: '40000',
      NATS_URL: 'nats://127.0.0.1:4222',
      SESSION_GRPC_ADDR: '127.0.0.1:50051',
      PAIRING_GRPC_ADDR: '127.0.0.1:40000',
      RELAY_NAME: 'build-box',
      OTEL_SERVICE_NAME: 'relay-pairing',
      RELAY_CLOCK_EPOCH: '1800000000000',
      LOG_LEVEL: 'info',
    });
    expect(env).not.toHaveProperty('PORT');
    expect(env).not.toHaveProperty('RELAY_CLOCK');
  });

  it('gives the gateway its HTTP port and host, and no database', () => {
    const env = serviceEnv('gateway', { ...input, clockSpec: '2026-10-24T22:30:00+02:00@60x' });
    expect(env).toMatchObject({ PORT: '7420', HOST: '127.0.0.1', OTEL_SERVICE_NAME: 'relay-gateway', RELAY_CLOCK: '2026-10-24T22:30:00+02:00@60x' });
    expect(env).not.toHaveProperty('DATABASE_URL');
    expect(env).not.toHaveProperty('GRPC_PORT');
  });

  it('switches agent sessions on in the session service and points its agents at the gateway', () => {
    expect(serviceEnv('session', input)).toMatchObject({ RELAY_AGENT_SESSIONS: 'on', RELAY_GATEWAY_URL: 'http://127.0.0.1:7420' });
    expect(serviceEnv('session', { ...input, agentSessions: 'off' }).RELAY_AGENT_SESSIONS).toBe('off');
    expect(serviceEnv('gateway', input)).not.toHaveProperty('RELAY_AGENT_SESSIONS');
  });
});
