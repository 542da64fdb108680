/**
 * The MCP SDK answers a request whose params its schema refuses with the schema's issues dumped as JSON. The route
 * finds such a request first, by the same schemas, and refuses it as invalid params (-32602) in a sentence.
 */
import { specTypeSchemas, type RequestId, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** Looser than the SDK's tools/call: its arguments, whatever they are, are relay_tool's to refuse (INVALID_INPUT). */
const CallToolRequest = z.object({ method: z.literal('tools/call'), params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }) });

/** The schema of each request method the relay's MCP server answers (any other is the SDK's "method not found"). */
const REQUEST_SCHEMAS: Record<string, StandardSchemaV1> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': CallToolRequest,
  'logging/setLevel': specTypeSchemas.SetLevelRequest,
};

/** Enough of a refusal's issues to act on. */
const MAX_ISSUES = 5;

/** The first request of a JSON-RPC message (or batch) whose params its method's schema refuses: its id and why. */
export function invalidParamsOf(body: unknown): { id: RequestId | null; message: string } | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string' || !Object.hasOwn(REQUEST_SCHEMAS, method)) continue;
    const parsed = REQUEST_SCHEMAS[method]!['~standard'].validate(message);
    if ('then' in parsed || parsed.issues === undefined) continue;
    const requestId = typeof id === 'string' || typeof id === 'number' ? id : null;
    if (method === 'tools/call' && typeof (params as { name?: unknown } | null | undefined)?.name !== 'string') {
      return { id: requestId, message: 'Invalid params: tools/call needs params.name, the name of the tool to call (relay_tool).' };
    }
    const issues = parsed.issues
      .slice(0, MAX_ISSUES)
      .map((issue) => `${(issue.path ?? []).map((key) => String(typeof key === 'object' ? key.key : key)).join('.') || 'the message'}: ${issue.message}`);
    return { id: requestId, message: `Invalid params for ${method}: ${issues.join('; ')}.` };
  }
  return undefined;
}
