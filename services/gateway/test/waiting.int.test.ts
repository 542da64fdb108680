import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentsClosedAfterEach, connectAgent, type TestAgent } from './mcp-agent.ts';
import { slowWait } from './start-fake-owners.ts';
import { startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
const newAgent = agentsClosedAfterEach(() => gateway);

beforeAll(async () => {
  gateway = await startGateway('desk');
});

afterAll(async () => {
  await gateway.close();
});

/** A session with a finished turn for `text`; answers its id and the message id. */
async function finishedTurn(agent: TestAgent, text = 'Deploy.') {
  const session = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
  const { body } = await agent.call({ action: 'send', relay: 'this', session: session.id, text, wait_seconds: 0 });
  gateway.owners.calls.splice(0);
  return { sessionId: session.id, messageId: body.message_id as string };
}

describe('wait', () => {
  it("waits for the turn and answers its reply, as long as the relay's longest wait by default", async () => {
    const agent = await newAgent();
    const { sessionId, messageId } = await finishedTurn(agent);
    const { isError, body } = await agent.call({ action: 'wait', relay: 'this', session: sessionId, message_id: messageId });
    expect(isError).toBe(false);
    expect(body).toEqual({
      ok: true,
      relay: 'desk',
      summary: `wait → desk session ${sessionId.slice(0, 8)}: done: "script-1: Deploy."`,
      status: 'done',
      session: sessionId,
      message_id: messageId,
      reply: { text: 'script-1: Deploy.', model: 'script-1' },
      delivery: 'delivered',
      openUrl: `https://desk.example.com/sessions/${sessionId}`,
    });
    expect(gateway.owners.calls).toEqual([
      { method: 'wait', request: { userId: 'u1', callerSessionId: agent.session.id, sessionId, messageId, waitSeconds: 600 } },
    ]);
  });

  it("caps wait_seconds at the relay's longest wait and says so in a note", async () => {
    const agent = await newAgent();
    const { sessionId, messageId } = await finishedTurn(agent);
    gateway.owners.settings.maxWaitSeconds = 300;
    const { body } = await agent.call({ action: 'wait', relay: 'this', session: sessionId, message_id: messageId, wait_seconds: 900 });
    expect(body.note).toBe("wait_seconds 900 is more than this relay's longest wait per tool call (300 s), so this call waited at most 300 s.");
    expect(gateway.owners.calls.at(-1)?.request.waitSeconds).toBe(300);
  });

  it('answers running when the turn has not finished, and says to call wait again', async () => {
    const agent = await newAgent();
    const { sessionId, messageId } = await finishedTurn(agent);
    gateway.owners.turns.get(messageId)!.status = 2;
    const { body } = await agent.call({ action: 'wait', relay: 'this', session: sessionId, message_id: messageId, wait_seconds: 5 });
    expect(body).toMatchObject({ ok: true, status: 'running' });
    expect(body.summary).toContain(`call wait with message_id ${messageId}`);
  });

  it.each([
    ['no session', { message_id: 'm' }],
    ['no message_id', { session: 's' }],
    ['a negative wait', { session: 's', message_id: 'm', wait_seconds: -1 }],
  ])('answers REMOTE_RELAY_INVALID_INPUT for %s', async (_label, args) => {
    const agent = await newAgent();
    const { isError, body } = await agent.call({ action: 'wait', relay: 'this', ...args });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(gateway.owners.calls).toEqual([]);
  });

  it('refuses to wait for its own conversation, and passes REMOTE_RELAY_NOT_FOUND through', async () => {
    const agent = await newAgent();
    expect((await agent.call({ action: 'wait', relay: 'this', session: agent.session.id, message_id: 'm' })).body).toMatchObject({
      code: 'REMOTE_RELAY_FORBIDDEN',
    });
    const { isError, body } = await agent.call({ action: 'wait', relay: 'this', session: 's', message_id: 'nope' });
    expect(isError).toBe(true);
    expect(body).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
  });
});

describe('long waits over MCP', () => {
  it('keeps a client whose tool timeout is shorter than the turn waiting with progress, and it gets the reply', async () => {
    const agent = await newAgent();
    const session = gateway.owners.addAgentSession('u1').session;
    gateway.owners.waitScript = slowWait(gateway.owners, 300, 2000);
    const progress: Progress[] = [];

    const { isError, body } = await agent.call(
      { action: 'send', relay: 'this', session: session.id, text: 'Take your time.' },
      { timeout: 1000, resetTimeoutOnProgress: true, onprogress: (update) => progress.push(update) },
    );
    expect(isError).toBe(false);
    expect(body).toMatchObject({ ok: true, status: 'done', reply: { text: 'script-1: Take your time.' } });
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0]?.message).toContain('waiting for the reply');
  });

  it('sends progress while the user decides on a card, too', async () => {
    const agent = await newAgent();
    const progress: Progress[] = [];
    await agent.call({ action: 'create_session', relay: 'this', text: 'x' }, { onprogress: (update) => progress.push(update) });
    expect(progress.some((update) => update.message?.includes('waiting for the user to decide'))).toBe(true);
  });

  it('without progress resets, the client times out and the wait on the session service is cancelled; the turn goes on', async () => {
    const agent = await newAgent();
    const session = gateway.owners.addAgentSession('u1').session;
    gateway.owners.waitScript = slowWait(gateway.owners, 300, 5000);
    await expect(agent.call({ action: 'send', relay: 'this', session: session.id, text: 'x' }, { timeout: 1000 })).rejects.toThrow(/timed out/i);
    const [waited] = gateway.owners.calls.filter((call) => call.method === 'wait');
    await expect.poll(() => gateway.owners.cancelledWaits).toContain(waited?.request.messageId);
    expect(gateway.owners.writes()).toHaveLength(1);
  });

  it('cancels the wait on the session service when the client goes away, and a later wait picks the turn up', async () => {
    const agent = await newAgent();
    const session = gateway.owners.addAgentSession('u1').session;
    gateway.owners.waitScript = slowWait(gateway.owners, 300, 30_000);
    const pending = agent.call({ action: 'send', relay: 'this', session: session.id, text: 'Long job.' }).catch((error: unknown) => error);
    await expect.poll(() => gateway.owners.calls.some((call) => call.method === 'wait')).toBe(true);
    const [waited] = gateway.owners.calls.filter((call) => call.method === 'wait');
    const messageId = waited?.request.messageId as string;

    await agent.close();
    await pending;
    await expect.poll(() => gateway.owners.cancelledWaits).toContain(messageId);

    gateway.owners.reset();
    const again = await newAgent();
    const { body } = await again.call({ action: 'wait', relay: 'this', session: session.id, message_id: messageId });
    expect(body).toMatchObject({ ok: true, status: 'done', reply: { text: 'script-1: Long job.' } });
  });
});

describe('openUrl', () => {
  it('is left out when the relay has no public URL', async () => {
    const bare = await startGateway('desk', { withoutPublicUrl: true });
    try {
      const agent = await connectAgent(bare);
      const session = bare.owners.addAgentSession('u1').session;
      const { body } = await agent.call({ action: 'send', relay: 'this', session: session.id, text: 'x' });
      expect(body).toMatchObject({ ok: true, status: 'done' });
      expect(body).not.toHaveProperty('openUrl');
      await agent.close();
    } finally {
      await bare.close();
    }
  });
});
