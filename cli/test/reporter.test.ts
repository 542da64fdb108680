import { describe, expect, it } from 'vitest';
import { Reporter } from '../src/reporter.ts';

function sink() {
  const lines: string[] = [];
  return { lines, stream: { write: (chunk: string) => lines.push(...chunk.split('\n').filter((line) => line !== '')) } as unknown as NodeJS.WritableStream };
}

describe('Reporter', () => {
  it('in JSON mode passes the services’ JSON through untouched and wraps everything else as JSON', () => {
    const out = sink();
    const reporter = new Reporter({ json: true, color: false, level: 'info', out: out.stream, err: out.stream });
    reporter.child('session', '{"level":"info","msg":"up"}');
    reporter.child('nats', '[1] [WRN] slow consumer', 'warn');
    reporter.info('Starting the services');
    reporter.ready('Relay "x" is up.', { gatewayUrl: 'http://127.0.0.1:7420' });
    expect(out.lines[0]).toBe('{"level":"info","msg":"up"}');
    expect(out.lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'warn', service: 'nats', msg: '[1] [WRN] slow consumer' }),
      expect.objectContaining({ level: 'info', service: 'relay-up', msg: 'Starting the services' }),
      expect.objectContaining({ msg: 'relay is up', gatewayUrl: 'http://127.0.0.1:7420' }),
    ]);
  });

  it('in text mode hides lines below LOG_LEVEL and sends warnings to stderr', () => {
    const out = sink();
    const err = sink();
    const reporter = new Reporter({ json: false, color: false, level: 'info', out: out.stream, err: err.stream });
    reporter.child('postgres', 'checkpoint starting', 'debug');
    reporter.debug('details');
    reporter.warn('the stored user token was refused');
    reporter.ready('Relay "x" is up.', {});
    expect(out.lines).toEqual(['Relay "x" is up.']);
    expect(err.lines).toEqual(['warning: the stored user token was refused']);
  });

  it("on a terminal shows the services' warnings and errors, not their request lines", () => {
    const out = sink();
    const reporter = new Reporter({ json: false, color: false, level: 'info', out: out.stream, err: out.stream });
    reporter.child('gateway', '{"level":30,"time":0,"msg":"request","method":"GET","status":200}');
    reporter.child('gateway', '{"level":20,"time":0,"msg":"request"}');
    reporter.child('session', '{"level":40,"time":0,"msg":"provider claude is not set up"}');
    reporter.child('question', '{"level":"error","time":0,"msg":"cannot reach NATS"}');
    reporter.child('nats', '[1] [INF] Server is ready');
    reporter.child('nats', '[1] [WRN] slow consumer', 'warn');
    expect(out.lines).toHaveLength(3);
    expect(out.lines[0]).toContain('provider claude is not set up');
    expect(out.lines[1]).toContain('cannot reach NATS');
    expect(out.lines[2]).toContain('slow consumer');
  });

  it('with LOG_LEVEL=debug shows every line of the services on a terminal', () => {
    const out = sink();
    const reporter = new Reporter({ json: false, color: false, level: 'debug', out: out.stream, err: out.stream });
    reporter.child('gateway', '{"level":30,"time":0,"msg":"listening"}');
    reporter.child('gateway', '{"level":20,"time":0,"msg":"request"}');
    expect(out.lines).toHaveLength(2);
  });
});
