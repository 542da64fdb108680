import { describe, expect, it } from 'vitest';
import { toolCallAttributes } from './tool-call-metrics.ts';

describe('toolCallAttributes', () => {
  it('an answered call: its action and ok', () => {
    expect(toolCallAttributes('list_sessions', { ok: true, summary: 'No sessions.' })).toEqual({
      'relay.tool.action': 'list_sessions',
      'relay.tool.outcome': 'ok',
    });
  });

  it('a refusal: its code, outcome refused', () => {
    expect(toolCallAttributes('send', { ok: false, code: 'REMOTE_RELAY_UNKNOWN_SESSION', error: 'No such session.' })).toEqual({
      'relay.tool.action': 'send',
      'relay.tool.outcome': 'refused',
      'relay.tool.code': 'REMOTE_RELAY_UNKNOWN_SESSION',
    });
  });

  it('REMOTE_RELAY_INTERNAL is a failure, not a refusal', () => {
    expect(toolCallAttributes('ask', { ok: false, code: 'REMOTE_RELAY_INTERNAL', error: 'Internal error.' })['relay.tool.outcome']).toBe('failed');
  });

  it('an action that could not be read is unknown', () => {
    expect(toolCallAttributes(undefined, { ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'Unknown action.' })['relay.tool.action']).toBe('unknown');
  });
});
