import { trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/create-logger.ts';

function capture(): { lines: Record<string, unknown>[]; destination: { write(line: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, destination: { write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

describe('createLogger', () => {
  beforeAll(() => {
    new NodeTracerProvider().register();
  });

  it('mixes the active span ids into each line', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ name: 'session', destination });
    const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info({ sessionId: 's1' }, 'inside');
      span.end();
      return span.spanContext();
    });
    logger.info('outside');

    expect(lines[0]).toMatchObject({ service: 'session', level: 'info', msg: 'inside', sessionId: 's1', trace_id: ids.traceId, span_id: ids.spanId });
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[1]).toMatchObject({ service: 'session', msg: 'outside' });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it('honours the level', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ name: 'session', level: 'warn', destination });
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((line) => line.msg)).toEqual(['kept']);
  });
});
