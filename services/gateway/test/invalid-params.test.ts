// The requests whose params the MCP SDK's schemas refuse are found before the SDK answers them as its own internal
// error: each is refused as invalid params, with its id and what is wrong.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { invalidParamsOf } from '../src/adapters/http/mcp/invalid-params.ts';

const initialize = (params: unknown) => ({ jsonrpc: '2.0', id: -26, method: 'initialize', params });
const clientInfo = { name: 'an agent', version: '1.0.0' };

describe('invalidParamsOf', () => {
  it('names what an initialize lacks, with its id', () => {
    expect(invalidParamsOf(initialize({ name: 'relay_tool', arguments: 'x' }))).toEqual({
      id: -26,
      message:
        'Invalid params for initialize: params.protocolVersion: Invalid input: expected string, received undefined; params.capabilities: Invalid input: expected object, received undefined; params.clientInfo: Invalid input: expected object, received undefined.',
    });
  });

  it('passes a whole initialize, a tools/list, a ping and a relay_tool call on', () => {
    expect(invalidParamsOf(initialize({ protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo }))).toBeUndefined();
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 2, method: 'ping' })).toBeUndefined();
    // Arguments that are not an object reach relay_tool, which refuses them with REMOTE_RELAY_INVALID_INPUT.
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'relay_tool', arguments: 'x' } })).toBeUndefined();
  });

  it('refuses tools/list params that are not an object', () => {
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: 'x' })).toEqual({
      id: 'a',
      message: 'Invalid params for tools/list: params: Invalid input: expected object, received string.',
    });
  });

  it('says a tools/call needs a tool name, also within a batch, after the messages that are fine', () => {
    const nameless = { jsonrpc: '2.0', id: 0, method: 'tools/call', params: {} };
    expect(invalidParamsOf([{ jsonrpc: '2.0', id: 9, method: 'ping' }, nameless])).toEqual({
      id: 0,
      message: 'Invalid params: tools/call needs params.name, the name of the tool to call (relay_tool).',
    });
  });

  it("leaves methods it does not know, and what is not a message, to the SDK's own answers", () => {
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 1, method: 'resources/list', params: 'x' })).toBeUndefined();
    expect(invalidParamsOf({ jsonrpc: '2.0', id: 1, method: 'constructor', params: 'x' })).toBeUndefined();
    expect(invalidParamsOf('initialize')).toBeUndefined();
    expect(invalidParamsOf(null)).toBeUndefined();
  });
});
