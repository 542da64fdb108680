import { describe, expect, it } from 'vitest';
import { makeServiceCredentials, serviceKey } from '@relay/rpc';
import { databaseUrlFor, grpcAddress, replicaName, serviceEnv, type ServicePlanInput } from '../src/service-plan.ts';

const serviceCredentials = makeServiceCredentials();

const input: ServicePlanInput = {
  grpcPorts: { session: [50051], subscription: [50052], scheduler: [50053], question: [50054], pairing: [40000] },
  gatewayPort: 7420,
  gatewayHost: '127.0.0.1',
  publicUrl: 'http://127.0.0.1:7420',
  natsUrl: 'nats://127.0.0.1:4222',
  databaseServerUrl: 'postgresql://postgres:s%40cret@127.0.0.1:54329/postgres?sslmode=disable',
  relayName: 'build-box',
  agentSessions: 'on',
  logLevel: 'info',
  clockEpochMs: 1_800_000_000_000,
  serviceCredentials,
  natsPasswords: { session: 'pw-session', subscription: 'pw-subscription', scheduler: 'pw-scheduler', question: 'pw-question', pairing: 'pw-pairing' },
};

describe('databaseUrlFor', () => {
  it('replaces only the database name', () => {
    expect(databaseUrlFor(input.databaseServerUrl, 'relay_session')).toBe('postgresql://postgres:s%40cret@127.0.0.1:54329/relay_session?sslmode=disable');
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

  it('gives each service only its own token, every server the keys of all, and loopback gRPC', () => {
    const pairing = serviceEnv('pairing', input);
    expect(pairing).toMatchObject({
      RELAY_SERVICE_TOKEN: serviceCredentials.tokens.pairing,
      RELAY_SERVICE_KEYS: serviceCredentials.keys,
      GRPC_HOST: '127.0.0.1',
    });
    expect(serviceKey(serviceCredentials.tokens.pairing)).toHaveLength(64);
    const everyToken = Object.values(serviceCredentials.tokens);
    const gateway = serviceEnv('gateway', input);
    expect(gateway.RELAY_SERVICE_TOKEN).toBe(serviceCredentials.tokens.gateway);
    expect(gateway).not.toHaveProperty('RELAY_SERVICE_KEYS');
    for (const env of [pairing, gateway]) {
      const values = Object.values(env);
      expect(everyToken.filter((token) => values.includes(token))).toHaveLength(1);
    }
  });

  it('gives each service on the bus its own NATS user; a NATS_URL of the user’s gets none', () => {
    expect(serviceEnv('scheduler', input)).toMatchObject({ NATS_USER: 'scheduler', NATS_PASSWORD: 'pw-scheduler' });
    expect(serviceEnv('gateway', input)).not.toHaveProperty('NATS_USER');
    const own = serviceEnv('scheduler', { ...input, natsPasswords: undefined });
    expect(own).not.toHaveProperty('NATS_USER');
    expect(own).not.toHaveProperty('NATS_PASSWORD');
  });
});

describe('replicas (relay up --replicas)', () => {
  const scaled: ServicePlanInput = { ...input, grpcPorts: { ...input.grpcPorts, session: [50051, 50151], subscription: [50052, 50152, 50252] } };

  it('gives each replica its own port and every caller an ipv4 target listing them all', () => {
    expect(serviceEnv('session', scaled, 0).GRPC_PORT).toBe('50051');
    expect(serviceEnv('session', scaled, 1).GRPC_PORT).toBe('50151');
    expect(serviceEnv('subscription', scaled, 2).GRPC_PORT).toBe('50252');
    expect(serviceEnv('gateway', scaled)).toMatchObject({
      SESSION_GRPC_ADDR: 'ipv4:127.0.0.1:50051,127.0.0.1:50151',
      SUBSCRIPTION_GRPC_ADDR: 'ipv4:127.0.0.1:50052,127.0.0.1:50152,127.0.0.1:50252',
      SCHEDULER_GRPC_ADDR: '127.0.0.1:50053',
    });
    // Replicas share their database and their NATS user, as a Deployment's pods do.
    expect(serviceEnv('session', scaled, 1).DATABASE_URL).toBe(serviceEnv('session', scaled, 0).DATABASE_URL);
    expect(serviceEnv('session', scaled, 1).NATS_USER).toBe('session');
    expect(() => serviceEnv('session', scaled, 2)).toThrow(/no port for replica 3/);
  });

  it('names replicas after their service', () => {
    expect([0, 1, 2].map((index) => replicaName('session', index))).toEqual(['session', 'session-2', 'session-3']);
    expect(grpcAddress(50051)).toBe('127.0.0.1:50051');
    expect(grpcAddress([50051])).toBe('127.0.0.1:50051');
  });
});
