import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { toolError } from '../src/domain/errors.ts';
import { count, refusalFrom, success } from '../src/domain/result.ts';
import { toCallToolResult } from '../src/adapters/http/mcp/call-tool-result.ts';

describe('result shapes', () => {
  it('puts ok, relay and summary first', () => {
    const result = success('list_sessions → desk: 0 sessions', { sessions: [] }, 'desk');
    expect(Object.keys(result)).toEqual(['ok', 'relay', 'summary', 'sessions']);
    expect(result).toEqual({ ok: true, relay: 'desk', summary: 'list_sessions → desk: 0 sessions', sessions: [] });
  });

  it('leaves relay out when the call worked on none', () => {
    expect(success('list_relays: 0 relays, 0 unlocked')).toEqual({ ok: true, summary: 'list_relays: 0 relays, 0 unlocked' });
  });

  it('keeps a catalogued refusal with its details', () => {
    const error = toolError('REMOTE_RELAY_UNKNOWN_GROUP', 'no group "x"', { groups: [], groupsTotal: 0, ok: true });
    expect(refusalFrom(error)).toEqual({ ok: false, code: 'REMOTE_RELAY_UNKNOWN_GROUP', error: 'no group "x"', groups: [], groupsTotal: 0 });
  });

  it('hides anything else as REMOTE_RELAY_INTERNAL', () => {
    for (const error of [new Error('password=hunter2'), new AppError('DB_DOWN', 'internal', 'at 10.0.0.3'), 'boom']) {
      const refusal = refusalFrom(error);
      expect(refusal.code).toBe('REMOTE_RELAY_INTERNAL');
      expect(refusal.error).not.toMatch(/hunter2|10\.0\.0\.3|boom/);
    }
  });

  it('says a service did not answer when one was unreachable', () => {
    const refusal = refusalFrom(new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'connect ECONNREFUSED 127.0.0.1:50051'));
    expect(refusal.code).toBe('REMOTE_RELAY_INTERNAL');
    expect(refusal.error).not.toContain('50051');
  });

  it('carries a result as one text item of JSON, a refusal marked isError', () => {
    const ok = toCallToolResult(success('s'));
    expect(ok.isError).toBe(false);
    expect(ok.content).toEqual([{ type: 'text', text: '{"ok":true,"summary":"s"}' }]);
    const refused = toCallToolResult({ ok: false, code: 'REMOTE_RELAY_DISABLED', error: 'off' });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text)).toEqual({ ok: false, code: 'REMOTE_RELAY_DISABLED', error: 'off' });
  });

  it('counts in the singular and plural', () => {
    expect([count(0, 'relay'), count(1, 'relay'), count(2, 'session')]).toEqual(['0 relays', '1 relay', '2 sessions']);
  });
});
