/**
 * A minimal OTLP/HTTP (JSON) trace receiver on loopback: what a Collector would get from the relay.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

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
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const json = request.headers['content-type']?.includes('json') ?? false;
        if (request.url === '/v1/traces') this.record(json ? (JSON.parse(body.toString('utf8')) as OtlpRequest) : decodeTraceRequest(body));
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
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

// OTLP/HTTP's default encoding is protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf): decode the few fields we read
// from opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest into the JSON mapping's shape.
function fields(bytes: Uint8Array, read: (reader: BinaryReader, field: number, wireType: WireType) => boolean): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!read(reader, field, wireType)) reader.skip(wireType, field);
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function decodeKeyValue(bytes: Uint8Array): OtlpAttribute {
  const attribute: OtlpAttribute = { key: '', value: {} };
  fields(bytes, (reader, field) => {
    if (field === 1) attribute.key = reader.string();
    else if (field === 2)
      fields(reader.bytes(), (value, kind) => {
        if (kind === 1) attribute.value.stringValue = value.string();
        else if (kind === 2) attribute.value.boolValue = value.bool();
        else if (kind === 3) attribute.value.intValue = String(value.int64());
        else if (kind === 4) attribute.value.doubleValue = value.double();
        else return false;
        return true;
      });
    else return false;
    return true;
  });
  return attribute;
}

function decodeTraceRequest(body: Uint8Array): OtlpRequest {
  const request: Required<OtlpRequest> = { resourceSpans: [] };
  fields(body, (reader, field) => {
    if (field !== 1) return false;
    const resourceSpans: NonNullable<OtlpRequest['resourceSpans']>[number] = { resource: { attributes: [] }, scopeSpans: [] };
    fields(reader.bytes(), (rs, rsField) => {
      if (rsField === 1) fields(rs.bytes(), (r, f) => (f === 1 ? (resourceSpans.resource!.attributes!.push(decodeKeyValue(r.bytes())), true) : false));
      else if (rsField === 2) {
        const spans: NonNullable<NonNullable<OtlpRequest['resourceSpans']>[number]['scopeSpans']>[number]['spans'] = [];
        fields(rs.bytes(), (ss, ssField) => {
          if (ssField !== 2) return false;
          const span = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, attributes: [] as OtlpAttribute[] };
          fields(ss.bytes(), (s, f) => {
            if (f === 1) span.traceId = hex(s.bytes());
            else if (f === 2) span.spanId = hex(s.bytes());
            else if (f === 4) span.parentSpanId = hex(s.bytes());
            else if (f === 5) span.name = s.string();
            else if (f === 6) span.kind = s.int32();
            else if (f === 9) span.attributes.push(decodeKeyValue(s.bytes()));
            else return false;
            return true;
          });
          spans!.push(span);
          return true;
        });
        resourceSpans.scopeSpans!.push({ spans });
      } else return false;
      return true;
    });
    request.resourceSpans.push(resourceSpans);
    return true;
  });
  return request;
}
