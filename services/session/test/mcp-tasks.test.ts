// MCP clients' tasks (app/mcp-tasks): a task is its session's only, and keeps its call and caller; its runner's writes
// renew its lease, and a write of a runner that no longer holds it changes nothing; a task that ended keeps its end
// whatever is written after; one still at work is claimed by another runner once its lease ran out or its runner let it
// go, and by one runner only; a cancel ends a task still at work, which its runner's next write reads back.
import { describe, expect, it } from 'vitest';
import {
  cancelMcpTask,
  claimMcpTasks,
  createMcpTask,
  ENDED_MCP_TASK_STATUSES,
  getMcpTask,
  updateMcpTask,
  type McpTask,
  type McpTaskStore,
} from '../src/app/mcp-tasks/mcp-tasks.ts';

/** The Prisma store's rules, in memory: writes fenced by the runner, claims of tasks at work whose lease ran out. */
class InMemoryMcpTasks implements McpTaskStore {
  readonly tasks = new Map<string, McpTask>();
  async create(task: McpTask): Promise<void> {
    this.tasks.set(task.id, task);
  }
  async find(id: string, sessionId: string): Promise<McpTask | undefined> {
    const task = this.tasks.get(id);
    return task?.sessionId === sessionId ? task : undefined;
  }
  async updateUnlessEnded(task: McpTask, runnerId?: string): Promise<McpTask | undefined> {
    const stored = this.tasks.get(task.id)!;
    if (ENDED_MCP_TASK_STATUSES.includes(stored.status) || (runnerId !== undefined && stored.runnerId !== runnerId)) return stored;
    this.tasks.set(task.id, task);
    return task;
  }
  async claimExpired(runnerId: string, now: Date, leaseExpiresAt: Date, limit: number): Promise<McpTask[]> {
    const expired = [...this.tasks.values()].filter((task) => !ENDED_MCP_TASK_STATUSES.includes(task.status) && task.leaseExpiresAt.getTime() <= now.getTime());
    return expired.slice(0, limit).map((task) => {
      const claimed = { ...task, runnerId, leaseExpiresAt, updatedAt: now };
      this.tasks.set(task.id, claimed);
      return claimed;
    });
  }
}

const at = (seconds: number) => new Date(Date.UTC(2026, 11, 7, 9, 0, seconds));
let next = 0;
/** The sessions: s1 and s2 are u1's hosted ones, e1 u1's external one. */
const SESSIONS = new Map([
  ['s1', { userId: 'u1', origin: 'hosted' }],
  ['s2', { userId: 'u1', origin: 'hosted' }],
  ['e1', { userId: 'u1', origin: 'external' }],
]);
const deps = () => ({
  mcpTasks: new InMemoryMcpTasks(),
  sessions: { findSession: async (id: string) => SESSIONS.get(id) },
  ids: { newId: () => `task-${(next += 1)}` },
});
const LEASE_MS = 60_000;
const INPUT = '{"action":"send","relay":"this","session":"s9","text":"hi"}';
const newTask = (sessionId: string, runnerId = 'gw-a') => ({ sessionId, inputJson: INPUT, userId: 'u1', runnerId, leaseMs: LEASE_MS });
const update = (task: McpTask, fields: Partial<McpTask> & { release?: boolean }) => ({
  id: task.id,
  sessionId: task.sessionId,
  status: task.status,
  statusMessage: '',
  resultJson: '',
  cardId: '',
  progressJson: '',
  runnerId: task.runnerId,
  leaseMs: LEASE_MS,
  release: false,
  ...fields,
});

describe('MCP tasks', () => {
  it('is found by its own session only, with its call and caller', async () => {
    const d = deps();
    const task = await createMcpTask(d, newTask('s1'), at(0));
    expect(await getMcpTask(d, task.id, 's1')).toMatchObject({
      id: task.id,
      status: 'working',
      inputJson: INPUT,
      userId: 'u1',
      external: false,
      runnerId: 'gw-a',
    });
    await expect(getMcpTask(d, task.id, 's2')).rejects.toMatchObject({ message: `No task ${task.id} of this session.` });
    await expect(updateMcpTask(d, update({ ...task, sessionId: 's2' }, { status: 'completed' }), at(1))).rejects.toMatchObject({
      message: `No task ${task.id} of this session.`,
    });
  });

  it('keeps as its caller its session’s own user and origin, whatever the request says', async () => {
    const d = deps();
    expect(await createMcpTask(d, newTask('e1'), at(0))).toMatchObject({ userId: 'u1', external: true });
    // A hosted session's task is not external, even when asked as one: a replica that takes it over acts as the session.
    expect(await createMcpTask(d, { ...newTask('s1'), external: true } as ReturnType<typeof newTask>, at(0))).toMatchObject({ external: false });
    for (const [sessionId, userId] of [
      ['s1', 'u2'],
      ['nowhere', 'u1'],
    ]) {
      await expect(createMcpTask(d, { ...newTask(sessionId!), userId: userId! }, at(0))).rejects.toMatchObject({ kind: 'not_found' });
    }
    expect(d.mcpTasks.tasks.size).toBe(2);
  });

  it('is claimed by another runner once its lease ran out, each write renewing it; the old runner’s writes then change nothing', async () => {
    const d = deps();
    const task = await createMcpTask(d, newTask('s1'), at(0));
    await updateMcpTask(d, update(task, { status: 'input_required', cardId: 'c1', progressJson: '{"send":{"done":1}}' }), at(50));
    expect(await claimMcpTasks(d, 'gw-b', LEASE_MS, 10, at(100))).toEqual([]);
    const [claimed] = await claimMcpTasks(d, 'gw-b', LEASE_MS, 10, at(111));
    expect(claimed).toMatchObject({ id: task.id, status: 'input_required', cardId: 'c1', progressJson: '{"send":{"done":1}}', runnerId: 'gw-b' });
    // Claimed once: the lease is the new runner's.
    expect(await claimMcpTasks(d, 'gw-c', LEASE_MS, 10, at(112))).toEqual([]);
    // The old runner, back from a pause, is answered the task as it stands and writes nothing.
    expect(await updateMcpTask(d, update(task, { status: 'completed', resultJson: '{"content":[]}' }), at(113))).toMatchObject({
      status: 'input_required',
      runnerId: 'gw-b',
    });
    expect(await updateMcpTask(d, update(claimed!, { status: 'completed', resultJson: '{"content":[]}' }), at(114))).toMatchObject({ status: 'completed' });
  });

  it('is claimed at once once its runner let it go (a SIGTERM’s hand-over), its lease notwithstanding', async () => {
    const d = deps();
    const task = await createMcpTask(d, newTask('s1'), at(0));
    expect(await updateMcpTask(d, update(task, { status: 'working', release: true }), at(5))).toMatchObject({ runnerId: '' });
    // Let go, it is no runner's: a late write of the one that let it go changes nothing.
    expect(await updateMcpTask(d, update(task, { status: 'completed' }), at(6))).toMatchObject({ status: 'working', runnerId: '' });
    // Nor does a write that names no runner, which would otherwise match a task held by none.
    await expect(updateMcpTask(d, update(task, { status: 'completed', runnerId: '' }), at(6))).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(d.mcpTasks.tasks.get(task.id)).toMatchObject({ status: 'working', runnerId: '' });
    expect(await claimMcpTasks(d, 'gw-b', LEASE_MS, 10, at(6))).toMatchObject([{ id: task.id, runnerId: 'gw-b' }]);
  });

  it('keeps its end: a completed task is not written again, nor is it claimed', async () => {
    const d = deps();
    const task = await createMcpTask(d, newTask('s1'), at(0));
    await updateMcpTask(d, update(task, { status: 'completed', resultJson: '{"content":[]}' }), at(10));
    expect(await updateMcpTask(d, update(task, { status: 'working' }), at(20))).toMatchObject({ status: 'completed', resultJson: '{"content":[]}' });
    expect(await claimMcpTasks(d, 'gw-b', LEASE_MS, 10, at(600))).toEqual([]);
    expect(await getMcpTask(d, task.id, 's1')).toMatchObject({ status: 'completed' });
  });

  it('is cancelled by its own session only; its runner’s next write reads the cancel back, and an ended task keeps its end', async () => {
    const d = deps();
    const task = await createMcpTask(d, newTask('s1'), at(0));
    await expect(cancelMcpTask(d, task.id, 's2', at(1))).rejects.toMatchObject({ message: `No task ${task.id} of this session.` });
    expect(await getMcpTask(d, task.id, 's1')).toMatchObject({ status: 'working' });
    expect(await cancelMcpTask(d, task.id, 's1', at(2))).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by its client.' });
    expect(await updateMcpTask(d, update(task, { status: 'working', statusMessage: 'still waiting' }), at(3))).toMatchObject({ status: 'cancelled' });

    const done = await createMcpTask(d, newTask('s1'), at(0));
    await updateMcpTask(d, update(done, { status: 'completed', resultJson: '{"content":[]}' }), at(10));
    expect(await cancelMcpTask(d, done.id, 's1', at(11))).toMatchObject({ status: 'completed', resultJson: '{"content":[]}' });
  });
});
