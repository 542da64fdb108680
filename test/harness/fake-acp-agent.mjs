// A fake ACP agent for the end-to-end tests: speaks the Agent Client Protocol on stdio through the official SDK's
// agent side, as Gemini CLI or OpenCode would. What it does is read off the prompt's last line:
//   "run: <command>"  asks permission for the command (an execute tool call); allowed, runs it in a client terminal
//                     and replies with its output; refused, replies "refused".
//   "write: <path> <text>"  writes <text> to <path> (relative to the session's folder) through the client's
//                     fs/write_text_file; replies "wrote" or "write failed: <why>".
//   "read: <path>"    reads <path> through fs/read_text_file; replies "read: <text>" or "read failed".
//   "hang"            replies "working" and waits until cancelled (session/cancel).
//   anything else     replies "echo: <text>".
// It offers two models (its "model" config option) and reports usage: tokens on the prompt's response, cost as
// usage_update.
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

const MODELS = ['fake-pro-2', 'fake-flash-2'];
const sessions = new Map();
const cancels = new Map();

const say = (client, sessionId, text) =>
  client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

const app = agent({ name: 'fake-acp-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, mcpCapabilities: { http: true } },
    authMethods: [],
  }))
  .onRequest('session/new', ({ params }) => {
    const sessionId = `fake-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd, model: MODELS[0] });
    return { sessionId, configOptions: configOptions(MODELS[0]) };
  })
  .onRequest('session/set_config_option', ({ params }) => {
    sessions.get(params.sessionId).model = params.value;
    return { configOptions: configOptions(params.value) };
  })
  .onNotification('session/cancel', ({ params }) => cancels.get(params.sessionId)?.())
  .onRequest('session/prompt', async ({ params, client }) => {
    const { sessionId } = params;
    const session = sessions.get(sessionId);
    const text = params.prompt
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('')
      .split('\n')
      .at(-1);
    await client.notify('session/update', {
      sessionId,
      update: { sessionUpdate: 'usage_update', used: 1000, size: 100000, cost: { amount: 0.25, currency: 'USD' } },
    });
    const usage = { inputTokens: 300, outputTokens: 40, totalTokens: 340 };
    if (text === 'hang') {
      await say(client, sessionId, 'working');
      await new Promise((resolve) => cancels.set(sessionId, resolve));
      return { stopReason: 'cancelled', usage };
    }
    if (text.startsWith('write: ')) {
      const [path, ...words] = text.slice('write: '.length).split(' ');
      const wrote = await client.request('fs/write_text_file', { sessionId, path: join(session.cwd, path), content: words.join(' ') }).then(
        () => 'wrote',
        (error) => `write failed: ${error.message}`,
      );
      await say(client, sessionId, wrote);
      return { stopReason: 'end_turn', usage };
    }
    if (text.startsWith('read: ')) {
      const read = await client.request('fs/read_text_file', { sessionId, path: join(session.cwd, text.slice('read: '.length)) }).then(
        ({ content }) => `read: ${content}`,
        () => 'read failed',
      );
      await say(client, sessionId, read);
      return { stopReason: 'end_turn', usage };
    }
    if (text.startsWith('run: ')) {
      const command = text.slice('run: '.length);
      const toolCall = { toolCallId: 'call-1', title: `Run ${command}`, kind: 'execute', status: 'pending', rawInput: { command } };
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', ...toolCall } });
      const permission = await client.request('session/request_permission', {
        sessionId,
        toolCall,
        options: [
          { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
          { optionId: 'no', name: 'Reject', kind: 'reject_once' },
        ],
      });
      if (permission.outcome.outcome !== 'selected' || permission.outcome.optionId !== 'yes') {
        await say(client, sessionId, 'refused');
        return { stopReason: 'end_turn', usage };
      }
      const terminal = await client.createTerminal({ sessionId, command, cwd: session.cwd });
      const exit = await terminal.waitForExit();
      const { output } = await terminal.currentOutput();
      await terminal.release();
      await say(client, sessionId, `ran (exit ${exit.exitCode}): ${output.trim()}`);
      return { stopReason: 'end_turn', usage };
    }
    await say(client, sessionId, `echo (${session.model}): `);
    await say(client, sessionId, text);
    return { stopReason: 'end_turn', usage };
  });

function configOptions(current) {
  return [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: current, options: MODELS.map((value) => ({ value, name: value })) }];
}

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
