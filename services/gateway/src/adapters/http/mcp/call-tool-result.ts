import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolResult } from '../../../domain/result.ts';

/** The MCP tool result carrying `result`: one text item with its JSON; `isError` when refused. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], isError: !result.ok };
}
