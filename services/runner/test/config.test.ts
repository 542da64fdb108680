import { ConfigError } from '@relay/config';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

const TLS = { GRPC_TLS_CA: '/etc/relay/grpc-tls/ca.crt', GRPC_TLS_CERT: '/etc/relay/grpc-tls/tls.crt', GRPC_TLS_KEY: '/etc/relay/grpc-tls/tls.key' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems.map((p) => p.variable).sort();
  }
}

describe("the runner's config", () => {
  it("defaults to the pod's paths and ports", () => {
    expect(loadConfig({ RUNNER_ROLE: 'commands' })).toMatchObject({
      RUNNER_SOCKET: '/run/runner/runner.sock',
      RUNNER_WORKSPACE: '/workspace',
      RUNNER_HEALTH_PORT: 50060,
      RUNNER_PORT: 50056,
    });
  });

  it('the tls side serves only with its certificate; the commands side, where commands run, is never given one', () => {
    expect(problems({ RUNNER_ROLE: 'tls' })).toEqual(['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY']);
    expect(problems({ RUNNER_ROLE: 'tls', ...TLS })).toEqual([]);
    expect(problems({ RUNNER_ROLE: 'commands', GRPC_TLS_KEY: TLS.GRPC_TLS_KEY })).toEqual(['GRPC_TLS_KEY']);
    expect(problems({})).toEqual(['RUNNER_ROLE']);
  });
});
