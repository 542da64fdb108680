import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import type { ActionDefinition } from '../src/app/relay-tool/define-action.ts';
import type { ToolArguments } from '../src/domain/tool-arguments.ts';
import { readTaskOutput } from '../src/app/relay-tool/actions/read-task-output.ts';
import type { Task } from '@relay/proto/relay/session/v1/session';
import type { ReadTaskOutputResponse } from '@relay/proto/relay/session/v1/session_service';

type TaskOutput = ReadTaskOutputResponse & { task: Task };

/** Calls an action's handler as dispatch does: with its own definition in the context. */
const call = (action: ActionDefinition, args: ToolArguments, context: Omit<ActionContext, 'action'>) => action.handler(args, { ...context, action });

const STARTED = new Date('2026-10-18T08:40:00.000Z');
const SINCE = new Date('2026-10-18T09:12:00.000Z');

const running: TaskOutput = {
  task: {
    id: 'task_b7k2m9q4e1f0a3c5',
    sessionId: '3f9c2a1e-0000-4000-8000-000000000000',
    description: 'npm test',
    type: 'local_bash',
    status: 'running',
    exitCode: undefined,
    startedAt: STARTED,
    endedAt: undefined,
    lastOutputAt: undefined,
    hasOutput: true,
    reason: '',
    health: undefined,
    counts: undefined,
  },
  tail: Array.from({ length: 50 }, (_, i) => `line ${i}`),
  truncated: true,
  stall: { minutes: 14, since: SINCE, quiet: true, quietAfterMinutes: 10 },
  counts: { runner: 'vitest', passed: 412, failed: 2, skipped: 0, final: false },
  notes: [],
};

/** A context whose session owner answers `read` and records what it was asked. */
function contextWith(read: TaskOutput) {
  const asked: unknown[] = [];
  const context = {
    caller: { userId: 'u1', sessionId: 'watcher' },
    relayName: 'build-box',
    paired: [],
    settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 },
    sessions: {
      readTaskOutput: async (...args: unknown[]) => {
        asked.push(args);
        return read;
      },
    },
  } as unknown as ActionContext;
  return { context, asked };
}

describe('read_task_output', () => {
  it('answers as the spec shows: task, stall while it runs, counts, tail, truncated, and its summary line', async () => {
    const { context, asked } = contextWith(running);
    const result = await call(readTaskOutput, { relay: 'this', session: '3f9c2a1e-0000-4000-8000-000000000000', task_id: running.task.id }, context);
    expect(asked).toEqual([[{ userId: 'u1', sessionId: '3f9c2a1e-0000-4000-8000-000000000000', taskId: running.task.id, lines: 50 }]]);
    expect(result).toEqual({
      ok: true,
      relay: 'build-box',
      summary: 'read_task_output → build-box session 3f9c2a1e task b7k2m9q4: 50 lines, running, last output 14 min ago, 412 passed, 2 failed',
      task: { id: running.task.id, description: 'npm test', type: 'local_bash', start: STARTED.toISOString(), status: 'running', exitCode: null },
      stall: { minutes: 14, since: SINCE.toISOString(), quiet: true, quietAfterMinutes: 10 },
      counts: { runner: 'vitest', passed: 412, failed: 2, skipped: 0, final: false },
      tail: running.tail,
      truncated: true,
    });
  });

  it('an ended task has no stall; its exit code and notes are shown', async () => {
    const ended: TaskOutput = {
      ...running,
      task: { ...running.task, status: 'failed', exitCode: 1, endedAt: SINCE },
      stall: undefined,
      tail: ['Tests  2 failed | 412 passed (414)'],
      counts: { ...running.counts!, final: true },
      notes: ['Only the end of the output exists: the relay keeps the last 512 KB of the 3.1 MB written.'],
    };
    const result = await call(readTaskOutput, { session: 's1', task_id: ended.task.id, lines: 1 }, contextWith(ended).context);
    expect(result).toMatchObject({
      summary: 'read_task_output → build-box session s1 task b7k2m9q4: 1 line, failed, exit code 1, 412 passed, 2 failed',
      task: { status: 'failed', exitCode: 1 },
      notes: ended.notes,
    });
    expect(result).not.toHaveProperty('stall');
  });

  it.each([0, 1001, 2.5, -1])('lines %s is refused before the session is asked', async (lines) => {
    const { context, asked } = contextWith(running);
    await expect(call(readTaskOutput, { session: 's1', task_id: 't1', lines }, context)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(asked).toEqual([]);
  });
});
