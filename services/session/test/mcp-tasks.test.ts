// MCP clients' tasks (app/mcp-tasks): a task is its session's only; its gateway's writes renew its lease; a task that
// ended keeps its end whatever is written after; one still at work past its lease (its gateway stopped) reads as
// failed, without a write; a cancel ends a task still at work, which its gateway's next write reads back.
import { describe, expect, it } from 'vitest';
import { cancelMcpTask, createMcpTask, getMcpTask, updateMcpTask, type McpTask, type McpTaskStore } from '../src/app/mcp-tasks/mcp-tasks.ts';

class InMemoryMcpTasks implements McpTaskStore {
  readonly tasks = new Map<string, McpTask>();
  async create(task: McpTask): Promise<void> {
    this.tasks.set(task.id, task);
  }
  async find(id: string, sessionId: string): Promise<McpTask | undefined> {
    const task = this.tasks.get(id);
    return task?.sessionId === sessionId ? task : undefined;
  }
  async updateUnlessEnded(task: McpTask): Promise<McpTask | undefined> {
    this.tasks.set(task.id, task);
    return task;
  }
}

const at = (seconds: number) => new Date(Date.UTC(2026, 11, 7, 9, 0, seconds));
let next = 0;
const deps = () => ({ mcpTasks: new InMemoryMcpTasks(), ids: { newId: () => `task-${(next += 1)}` } });
const LEASE_MS = 60_000;
const update = (task: McpTask, fields: Partial<McpTask>) => ({
  id: task.id,
  sessionId: task.sessionId,
  status: task.status,
  statusMessage: '',
  resultJson: '',
  cardId: '',
  leaseMs: LEASE_MS,
  ...fields,
});

describe('MCP tasks', () => {
  it('is found by its own session only', async () => {
    const d = deps();
    const task = await createMcpTask(d, 's1', LEASE_MS, at(0));
    expect(await getMcpTask(d, task.id, 's1', at(1))).toMatchObject({ id: task.id, status: 'working' });
    await expect(getMcpTask(d, task.id, 's2', at(1))).rejects.toMatchObject({ message: `No task ${task.id} of this session.` });
    await expect(updateMcpTask(d, update({ ...task, sessionId: 's2' }, { status: 'completed' }), at(1))).rejects.toMatchObject({
      message: `No task ${task.id} of this session.`,
    });
  });

  it('reads as failed once its lease ran out without a write, and each write renews the lease', async () => {
    const d = deps();
    const task = await createMcpTask(d, 's1', LEASE_MS, at(0));
    await updateMcpTask(d, update(task, { status: 'input_required', cardId: 'c1' }), at(50));
    expect(await getMcpTask(d, task.id, 's1', at(100))).toMatchObject({ status: 'input_required', cardId: 'c1' });
    expect(await getMcpTask(d, task.id, 's1', at(111))).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('stopped before it ended') });
  });

  it('keeps its end: a completed task is not written again, nor does its lease matter', async () => {
    const d = deps();
    const task = await createMcpTask(d, 's1', LEASE_MS, at(0));
    await updateMcpTask(d, update(task, { status: 'completed', resultJson: '{"content":[]}' }), at(10));
    expect(await updateMcpTask(d, update(task, { status: 'working' }), at(20))).toMatchObject({ status: 'completed', resultJson: '{"content":[]}' });
    expect(await getMcpTask(d, task.id, 's1', at(600))).toMatchObject({ status: 'completed' });
  });

  it('is cancelled by its own session only; its gateway’s next write reads the cancel back, and an ended task keeps its end', async () => {
    const d = deps();
    const task = await createMcpTask(d, 's1', LEASE_MS, at(0));
    await expect(cancelMcpTask(d, task.id, 's2', at(1))).rejects.toMatchObject({ message: `No task ${task.id} of this session.` });
    expect(await getMcpTask(d, task.id, 's1', at(1))).toMatchObject({ status: 'working' });
    expect(await cancelMcpTask(d, task.id, 's1', at(2))).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by its client.' });
    expect(await updateMcpTask(d, update(task, { status: 'working', statusMessage: 'still waiting' }), at(3))).toMatchObject({ status: 'cancelled' });

    const done = await createMcpTask(d, 's1', LEASE_MS, at(0));
    await updateMcpTask(d, update(done, { status: 'completed', resultJson: '{"content":[]}' }), at(10));
    expect(await cancelMcpTask(d, done.id, 's1', at(11))).toMatchObject({ status: 'completed', resultJson: '{"content":[]}' });
  });
});
