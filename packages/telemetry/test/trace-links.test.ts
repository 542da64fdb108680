// The helpers that keep background loops out of traces and link later work to what caused it.
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeTraceParent, inNewTrace, inTraceOf, linksTo, outsideTrace } from '../src/index.ts';

const exporter = new InMemorySpanExporter();
const tracer = () => trace.getTracer('test');

beforeAll(() => {
  new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
});
beforeEach(() => exporter.reset());

/** Runs `run` inside a span `name`; answers the span's ids. */
function within<T>(name: string, run: () => T): { result: T; traceId: string; spanId: string } {
  return tracer().startActiveSpan(name, (span) => {
    const result = run();
    span.end();
    return { result, ...span.spanContext() };
  });
}

describe('activeTraceParent', () => {
  it('is the active span as a W3C traceparent, and null outside any span', () => {
    const { result, traceId, spanId } = within('call', () => activeTraceParent());
    expect(result).toBe(`00-${traceId}-${spanId}-01`);
    expect(activeTraceParent()).toBeNull();
  });
});

describe('outsideTrace', () => {
  it('runs in no trace, even inside a span, and timers it starts stay outside', async () => {
    const seen = await tracer().startActiveSpan('message', async (span) => {
      const inside = outsideTrace(() => trace.getActiveSpan());
      const later = await outsideTrace(() => new Promise((resolve) => setTimeout(() => resolve(trace.getActiveSpan()), 1)));
      span.end();
      return { inside, later };
    });
    expect(seen).toEqual({ inside: undefined, later: undefined });
  });
});

describe('linksTo', () => {
  it('links once to each valid traceparent and skips missing or malformed ones', () => {
    const a = within('a', () => activeTraceParent()!);
    const b = within('b', () => activeTraceParent()!);
    const links = linksTo([a.result, null, b.result, undefined, 'not-a-traceparent', a.result]);
    expect(links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      [a.traceId, a.spanId],
      [b.traceId, b.spanId],
    ]);
  });
});

describe('inNewTrace', () => {
  it('starts a root span even inside another, with its links and attributes, and ends it', async () => {
    const cause = within('event', () => activeTraceParent()!);
    await within('consumer', () =>
      inNewTrace('subscription', 'wake-up', { attributes: { 'relay.wakeup.events': 1 }, links: linksTo([cause.result]) }, async () => 'done'),
    ).result;
    const wakeUp = exporter.getFinishedSpans().find((span) => span.name === 'wake-up')!;
    expect(wakeUp.parentSpanContext).toBeUndefined();
    expect(wakeUp.instrumentationScope.name).toBe('@relay/subscription');
    expect(wakeUp.attributes).toEqual({ 'relay.wakeup.events': 1 });
    expect(wakeUp.links.map((link) => link.context.spanId)).toEqual([cause.spanId]);
  });

  it('marks the span failed when its work throws, and throws on', async () => {
    await expect(inNewTrace('scheduler', 'schedule firing', {}, async () => Promise.reject(new Error('no database')))).rejects.toThrow('no database');
    const firing = exporter.getFinishedSpans().find((span) => span.name === 'schedule firing')!;
    expect(firing.status.code).toBe(2);
    expect(firing.events.map((event) => event.name)).toEqual(['exception']);
  });
});

describe('inTraceOf', () => {
  it('continues the stored traceparent, or runs outside any trace without one', () => {
    const queued = within('send', () => activeTraceParent()!);
    const child = inTraceOf(queued.result, () => within('turn_started publish', () => undefined));
    const span = exporter.getFinishedSpans().find((s) => s.name === 'turn_started publish')!;
    expect(child.traceId).toBe(queued.traceId);
    expect(span.parentSpanContext?.spanId).toBe(queued.spanId);
    expect(within('outer', () => inTraceOf(null, () => trace.getActiveSpan())).result).toBeUndefined();
  });
});
