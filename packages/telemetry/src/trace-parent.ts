import { context, isSpanContextValid, propagation, ROOT_CONTEXT, trace, type Link } from '@opentelemetry/api';

/**
 * The W3C traceparent of the span active now, or null outside any trace: stored with work that runs later
 * (a queued turn, a held event, a schedule), so the span that does it can link back to what asked for it.
 */
export function activeTraceParent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** Span links to the stored traceparents that are valid (duplicates once each); for a span that starts its own trace. */
export function linksTo(traceParents: readonly (string | null | undefined)[]): Link[] {
  const links: Link[] = [];
  const seen = new Set<string>();
  for (const traceparent of traceParents) {
    if (!traceparent || seen.has(traceparent)) continue;
    seen.add(traceparent);
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
    if (spanContext && isSpanContextValid(spanContext)) links.push({ context: spanContext });
  }
  return links;
}

/**
 * Runs `run` as a continuation of the stored traceparent (outside any trace when there is none): for a step that
 * belongs to the trace of what asked for it though it runs elsewhere (a turn's start, announced from the runner's claim).
 */
export function inTraceOf<T>(traceParent: string | null | undefined, run: () => T): T {
  return context.with(traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : ROOT_CONTEXT, run);
}
