import { trace, type Attributes } from '@opentelemetry/api';

/** Sets attributes (names from Attr) on the span active in this context, if any. */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}
