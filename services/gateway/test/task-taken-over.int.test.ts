/**
 * A call run as an MCP task, made again by the replica that takes the task over (docs/adr/0042-mcp-tasks-taken-over.md):
 * past an effect its first replica recorded made, it goes on from there, asking nothing again — no dry run, no card,
 * no loop guard — since asked again each would count the effect itself or ask the person anew. And a task its client
 * cancelled (through any replica) before its effect was begun makes none.
 */
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { McpTask } from '@relay/proto/relay/session/v1/mcp_task_service';
import { InFlightCalls } from '../src/adapters/http/mcp/in-flight-calls.ts';
import { McpTaskRunner } from '../src/adapters/http/mcp/mcp-task-runner.ts';
import type { McpTaskClient } from '../src/app/ports.ts';
import { dispatchToolCall, type CallChannel, type DispatchDeps } from '../src/app/relay-tool/dispatch.ts';
import type { CallEffects } from '../src/app/relay-tool/made-once.ts';
import { taskEffects } from './task-effects.ts';
import { fakeOwnerClients, startGateway, type TestGateway } from './start-gateway.ts';

let gateway: TestGateway;
let deps: DispatchDeps;
let closeClients: () => void;

beforeAll(async () => {
  gateway = await startGateway('desk');
  const { close, ...clients } = fakeOwnerClients(gateway.owners);
  closeClients = close;
  deps = { ...clients, relayName: 'desk', openUrlBase: undefined, logger: createLogger({ name: 'task-test', level: 'silent' }) };
});

afterAll(async () => {
  closeClients();
  await gateway.close();
});

beforeEach(() => gateway.owners.reset());

function channelOf(effects: CallEffects): CallChannel {
  return { signal: new AbortController().signal, progress: async () => undefined, inTask: true, effects };
}

describe.each([
  { action: 'send', effect: 'send', method: 'sendMessage' },
  { action: 'create_session', effect: 'create_session', method: 'createSession' },
])('$action taken over after its effect was made', ({ action, effect, method }) => {
  it('answers the effect made, raising no card and checking nothing again, even when the person would now deny', async () => {
    const caller = gateway.owners.addAgentSession('u1', { title: 'Planner', mode: 'ask' }).session;
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const input = { action, relay: 'this', text: 'Deploy now.', ...(action === 'send' ? { session: target.id } : {}) };
    const { recorded, effects } = taskEffects();
    gateway.owners.cardDecision = 'allow';

    const first = await dispatchToolCall(input, { userId: 'u1', sessionId: caller.id }, deps, channelOf(effects));
    expect(first).toMatchObject({ ok: true });
    expect(Object.keys(recorded).sort()).toEqual(['count_agent_prompt', effect].sort());
    expect(gateway.owners.cards).toHaveLength(1);

    // The replica that takes the task over makes the same call with the task's record.
    gateway.owners.calls.splice(0);
    gateway.owners.cardDecision = 'deny';
    const again = await dispatchToolCall(input, { userId: 'u1', sessionId: caller.id }, deps, channelOf(effects));

    expect(again).toEqual(first);
    expect(gateway.owners.calls.filter((call) => call.method === method)).toEqual([]);
    expect(gateway.owners.cards).toHaveLength(1);
  });
});

describe('a task cancelled by its client before its effect', () => {
  it('makes no effect: the write that would record it begun finds the task cancelled', async () => {
    const caller = gateway.owners.addAgentSession('u1', { title: 'Planner' }).session;
    const target = gateway.owners.addAgentSession('u1', { title: 'Nightly deploy' }).session;
    const writes: McpTask[] = [];
    // The session service as it answers once the client's tasks/cancel reached another replica: the task, cancelled.
    const cancelled = McpTask.fromPartial({ id: 'task_1', sessionId: caller.id, status: 'cancelled', userId: 'u1' });
    const mcpTasks = {
      createMcpTask: async () => ({ task: McpTask.fromPartial({ ...cancelled, status: 'working' }) }),
      updateMcpTask: async (request: McpTask) => {
        writes.push(request);
        return { task: { ...cancelled, runnerId: request.runnerId } };
      },
    } as unknown as McpTaskClient;
    let ended: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const inFlight = new (class extends InFlightCalls {
      override register(sessionId: string, requestId: string | number, controller: AbortController): () => void {
        const forget = super.register(sessionId, requestId, controller);
        return () => {
          forget();
          ended();
        };
      }
    })();
    // The loop guard's count is an effect too: the fake session service keeps no count, so this one is recorded here.
    const counted: boolean[] = [];
    const sessions = {
      ...deps.sessions,
      countAgentPrompt: async (request: { sessionId: string; dryRun: boolean }) => {
        if (!request.dryRun) counted.push(true);
        return deps.sessions.countAgentPrompt(request);
      },
    } as DispatchDeps['sessions'];
    const runner = new McpTaskRunner({ ...deps, sessions, publicUrl: 'https://desk.example.com', mcpTasks }, inFlight);

    await runner.start({ action: 'send', relay: 'this', session: target.id, text: 'Deploy now.' }, { userId: 'u1', sessionId: caller.id }, {});
    await done;

    expect(writes.length).toBeGreaterThan(0);
    expect(counted).toEqual([]);
    expect(gateway.owners.writes()).toEqual([]);
  });
});
