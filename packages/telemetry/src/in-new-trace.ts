import { SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';

export type { Span };

/**
 * Runs `run` in a new root span `name` of `@relay/<service>` (a trace of its own), with `links` to the spans that
 * caused it: for work that runs later than, or for several of, the calls and messages that asked for it (a queued
 * turn, a digest of held events, a schedule's firing). A throw marks the span failed; the span ends with `run`.
 */
export function inNewTrace<T>(
  service: string,
  name: string,
  options: { attributes?: Attributes; links?: Link[] },
  run: (span: Span) => Promise<T>,
): Promise<T> {
  const spanOptions = { kind: SpanKind.INTERNAL, root: true, attributes: options.attributes ?? {}, links: options.links ?? [] };
  return trace.getTracer(`@relay/${service}`).startActiveSpan(name, spanOptions, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` failed, with the error recorded on it when there is one. */
export function markFailed(span: Span, error?: unknown): void {
  if (error !== undefined) span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}
