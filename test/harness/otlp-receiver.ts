/**
 * A minimal OTLP/HTTP (JSON) trace receiver on loopback: what a Collector would get from the relay.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

function attributes(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server?: Server;

  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        if (request.url === '/v1/traces' && request.headers['content-type']?.includes('json')) this.record(JSON.parse(body) as OtlpRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private record(request: OtlpRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributes(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributes(span.attributes),
          });
        }
      }
    }
  }
}
