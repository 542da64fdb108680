import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface OtlpSpan {
  traceId: string;
  name: string;
  kind: number;
}
interface OtlpRequest {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const REGISTER = ['--import', '@relay/telemetry/register'];
const TSX = ['--import', 'tsx'];
// Services may name the two hooks in either order.
const ORDERS = [
  { order: 'register first', flags: [...REGISTER, ...TSX] },
  { order: 'tsx first', flags: [...TSX, ...REGISTER] },
];

/** Runs a fixture (the echo one by default) the way services start: `node --import @relay/telemetry/register --import tsx`. */
function runFixture(flags: string[], env: Record<string, string>, fixture = 'echo-main.ts'): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, `test/fixtures/${fixture}`], {
      cwd: packageDir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('@relay/telemetry/register', () => {
  const received: OtlpRequest[] = [];
  let collector: Server;
  let endpoint: string;

  beforeAll(async () => {
    // A stand-in OTLP/HTTP collector on loopback.
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.url === '/v1/traces') received.push(JSON.parse(body) as OtlpRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it.each(ORDERS)(
    'exports the gRPC client and server spans of one trace to OTEL_EXPORTER_OTLP_ENDPOINT, flushed by shutdownTelemetry ($order)',
    async ({ flags }) => {
      received.length = 0;
      const result = await runFixture(flags, {
        OTEL_SERVICE_NAME: 'echo-fixture',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect(result).toMatchObject({ code: 0, stderr: '' });

      const resources = received.flatMap((request) => request.resourceSpans);
      const serviceNames = resources.map((resource) => resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue);
      expect(new Set(serviceNames)).toEqual(new Set(['echo-fixture']));
      const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
      const parent = spans.find((span) => span.name === 'fixture.call');
      const grpcSpans = spans.filter((span) => span.traceId === parent?.traceId && span.name === 'grpc.relay.test.v1.EchoService/Echo');
      // OTLP span kinds: 2 = SERVER, 3 = CLIENT.
      expect(grpcSpans.map((span) => span.kind).sort()).toEqual([2, 3]);
    },
  );

  it('exports nothing and complains about nothing without an exporter or endpoint', async () => {
    const before = received.length;
    const result = await runFixture([...REGISTER, ...TSX], { OTEL_SERVICE_NAME: 'echo-fixture' });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(received.length).toBe(before);
  });

  it('loads no SDK without an exporter or endpoint (the API propagates nothing), and the SDK when one is set', async () => {
    const state = async (env: Record<string, string>) => {
      const result = await runFixture([...REGISTER, ...TSX], { OTEL_SERVICE_NAME: 'api-state', ...env }, 'api-state-main.ts');
      expect(result).toMatchObject({ code: 0, stderr: '' });
      // The first line: a console exporter may print after it.
      return JSON.parse(result.stdout.split('\n')[0]!) as { propagates: string[] };
    };
    expect(await state({})).toEqual({ propagates: [] });
    expect((await state({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).propagates).toContain('traceparent');
    expect((await state({ OTEL_METRICS_EXPORTER: 'console' })).propagates).toContain('traceparent');
  });
});
