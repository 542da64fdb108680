/**
 * A minimal OTLP/HTTP receiver on loopback for traces (`/v1/traces`) and metrics (`/v1/metrics`), in either
 * encoding (JSON or the default protobuf): what a Collector would get from the relay.
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
  /** When the span started, in ms since the epoch. */
  startMs: number;
  attributes: Record<string, unknown>;
  /** The spans this one links to (another trace's, usually): what caused work that starts a trace of its own. */
  links: { traceId: string; spanId: string }[];
}

/** One data point of a metric, flattened: a gauge's or a sum's value, a histogram's count and sum. */
export interface ReceivedPoint {
  service: string;
  name: string;
  unit: string;
  kind: 'gauge' | 'sum' | 'histogram';
  attributes: Record<string, unknown>;
  /** The gauge's or sum's value; a histogram's sum. */
  value: number;
  /** A histogram's count of recordings; 1 otherwise. */
  count: number;
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
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano?: string;
        attributes?: OtlpAttribute[];
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

interface OtlpNumberPoint {
  attributes?: OtlpAttribute[];
  asDouble?: number;
  asInt?: string | number;
}
interface OtlpHistogramPoint {
  attributes?: OtlpAttribute[];
  count?: string | number;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  gauge?: { dataPoints?: OtlpNumberPoint[] };
  sum?: { dataPoints?: OtlpNumberPoint[] };
  histogram?: { dataPoints?: OtlpHistogramPoint[] };
}
interface OtlpMetricsRequest {
  resourceMetrics?: { resource?: { attributes?: OtlpAttribute[] }; scopeMetrics?: { metrics?: OtlpMetric[] }[] }[];
}

function attributes(list: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly points: ReceivedPoint[] = [];
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
        if (request.url === '/v1/metrics') this.recordMetrics(json ? (JSON.parse(body.toString('utf8')) as OtlpMetricsRequest) : decodeMetricsRequest(body));
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

  /** Points of one metric, oldest export first. */
  metric(name: string): ReceivedPoint[] {
    return this.points.filter((point) => point.name === name);
  }

  private recordMetrics(request: OtlpMetricsRequest): void {
    for (const resourceMetrics of request.resourceMetrics ?? []) {
      const service = String(attributes(resourceMetrics.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceMetrics.scopeMetrics ?? []) {
        for (const metric of scope.metrics ?? []) {
          const base = { service, name: metric.name, unit: metric.unit ?? '' };
          for (const kind of ['gauge', 'sum'] as const) {
            for (const point of metric[kind]?.dataPoints ?? []) {
              this.points.push({ ...base, kind, attributes: attributes(point.attributes), value: point.asDouble ?? Number(point.asInt ?? 0), count: 1 });
            }
          }
          for (const point of metric.histogram?.dataPoints ?? []) {
            this.points.push({ ...base, kind: 'histogram', attributes: attributes(point.attributes), value: point.sum ?? 0, count: Number(point.count ?? 0) });
          }
        }
      }
    }
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
            startMs: Number(BigInt(span.startTimeUnixNano ?? '0') / 1_000_000n),
            attributes: attributes(span.attributes),
            links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
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

// Span.Link: trace_id = 1, span_id = 2.
function decodeLink(bytes: Uint8Array): { traceId: string; spanId: string } {
  const link = { traceId: '', spanId: '' };
  fields(bytes, (reader, field) => {
    if (field === 1) link.traceId = hex(reader.bytes());
    else if (field === 2) link.spanId = hex(reader.bytes());
    else return false;
    return true;
  });
  return link;
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
          const span = {
            traceId: '',
            spanId: '',
            parentSpanId: '',
            name: '',
            kind: 0,
            startTimeUnixNano: '0',
            attributes: [] as OtlpAttribute[],
            links: [] as { traceId: string; spanId: string }[],
          };
          fields(ss.bytes(), (s, f) => {
            if (f === 1) span.traceId = hex(s.bytes());
            else if (f === 2) span.spanId = hex(s.bytes());
            else if (f === 4) span.parentSpanId = hex(s.bytes());
            else if (f === 5) span.name = s.string();
            else if (f === 6) span.kind = s.int32();
            else if (f === 7) span.startTimeUnixNano = String(s.fixed64());
            else if (f === 9) span.attributes.push(decodeKeyValue(s.bytes()));
            else if (f === 13) span.links.push(decodeLink(s.bytes()));
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

// opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest, the fields read above: resource_metrics = 1
// { resource = 1, scope_metrics = 2 { metrics = 2 { name = 1, unit = 3, gauge = 5 / sum = 7 { data_points = 1 },
// histogram = 9 { data_points = 1 } } } }. NumberDataPoint: as_double = 4, as_int = 6 (sfixed64), attributes = 7.
// HistogramDataPoint: count = 4 (fixed64), sum = 5, attributes = 9.
function decodeNumberPoint(bytes: Uint8Array): OtlpNumberPoint {
  const point: Required<Pick<OtlpNumberPoint, 'attributes'>> & OtlpNumberPoint = { attributes: [] };
  fields(bytes, (reader, field) => {
    if (field === 4) point.asDouble = reader.double();
    else if (field === 6) point.asInt = String(reader.sfixed64());
    else if (field === 7) point.attributes.push(decodeKeyValue(reader.bytes()));
    else return false;
    return true;
  });
  return point;
}

function decodeHistogramPoint(bytes: Uint8Array): OtlpHistogramPoint {
  const point: Required<Pick<OtlpHistogramPoint, 'attributes'>> & OtlpHistogramPoint = { attributes: [] };
  fields(bytes, (reader, field) => {
    if (field === 4) point.count = String(reader.fixed64());
    else if (field === 5) point.sum = reader.double();
    else if (field === 9) point.attributes.push(decodeKeyValue(reader.bytes()));
    else return false;
    return true;
  });
  return point;
}

function decodePoints<P>(bytes: Uint8Array, decode: (bytes: Uint8Array) => P): { dataPoints: P[] } {
  const dataPoints: P[] = [];
  fields(bytes, (reader, field) => (field === 1 ? (dataPoints.push(decode(reader.bytes())), true) : false));
  return { dataPoints };
}

function decodeMetric(bytes: Uint8Array): OtlpMetric {
  const metric: OtlpMetric = { name: '' };
  fields(bytes, (reader, field) => {
    if (field === 1) metric.name = reader.string();
    else if (field === 3) metric.unit = reader.string();
    else if (field === 5) metric.gauge = decodePoints(reader.bytes(), decodeNumberPoint);
    else if (field === 7) metric.sum = decodePoints(reader.bytes(), decodeNumberPoint);
    else if (field === 9) metric.histogram = decodePoints(reader.bytes(), decodeHistogramPoint);
    else return false;
    return true;
  });
  return metric;
}

function decodeMetricsRequest(body: Uint8Array): OtlpMetricsRequest {
  const request: Required<OtlpMetricsRequest> = { resourceMetrics: [] };
  fields(body, (reader, field) => {
    if (field !== 1) return false;
    const resourceMetrics: NonNullable<OtlpMetricsRequest['resourceMetrics']>[number] = { resource: { attributes: [] }, scopeMetrics: [] };
    fields(reader.bytes(), (rm, rmField) => {
      if (rmField === 1) fields(rm.bytes(), (r, f) => (f === 1 ? (resourceMetrics.resource!.attributes!.push(decodeKeyValue(r.bytes())), true) : false));
      else if (rmField === 2) {
        const metrics: OtlpMetric[] = [];
        fields(rm.bytes(), (sm, smField) => (smField === 2 ? (metrics.push(decodeMetric(sm.bytes())), true) : false));
        resourceMetrics.scopeMetrics!.push({ metrics });
      } else return false;
      return true;
    });
    request.resourceMetrics.push(resourceMetrics);
    return true;
  });
  return request;
}
