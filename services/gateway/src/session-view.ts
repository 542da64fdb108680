/**
 * A session as agents and users see it, in list_sessions, read_session and the user API alike.
 */
import type { ChatMessage, GroupMember, GroupRef, Session, SessionRead, SessionTask, TestCounts } from './ports.ts';
import { GROUP_MEMBERS_LIMIT } from './relay-tool/limits.ts';

export interface SessionView {
  id: string;
  title: string;
  provider: string;
  model: string;
  state: Session['state'];
  cwd: string;
  /** A cloud session's repository and branch, in place of a folder. */
  repo?: string;
  branch?: string;
  lastActivityAt: string | null;
  messageCount: number;
  /** Background shell tasks: running, or ended within the hour. */
  tasks: TaskView[];
  /** Its session group and its role there, when it is in one. */
  group?: GroupView;
  /** The owner let agents in this conversation start sessions. */
  mayCreateSessions?: true;
  /** "via agent": the conversation whose agent started it. */
  startedBy?: { id: string; title: string };
  archived?: true;
}

export interface GroupView {
  id: string;
  name: string;
  role: string;
}

/** The JSON view of `session`; the optional fields appear only when they say something. */
export function sessionView(session: Session): SessionView {
  return {
    id: session.id,
    title: session.title,
    provider: session.provider,
    model: session.model,
    state: session.state,
    cwd: session.cwd,
    ...(session.repo ? { repo: session.repo, branch: session.branch } : {}),
    lastActivityAt: session.lastActivityAt?.toISOString() ?? null,
    messageCount: session.messageCount,
    tasks: session.tasks.map(taskView),
    ...(session.group ? { group: groupView(session.group) } : {}),
    ...(session.mayCreateSessions ? { mayCreateSessions: true as const } : {}),
    ...(session.startedBy ? { startedBy: { id: session.startedBy.id, title: session.startedBy.title } } : {}),
    ...(session.archived ? { archived: true as const } : {}),
  };
}

/** A task as list_sessions and read_session show it (spec, read_session: taskId, output, health, counts). */
export interface TaskView {
  taskId: string;
  description: string;
  type: string;
  status: string;
  exitCode: number | null;
  /** Whether there is output to read with read_task_output. */
  output: boolean;
  startedAt: string | null;
  endedAt?: string;
  /** Why it failed without an exit code. */
  reason?: string;
  /** While it runs. */
  health?: { minutesSinceOutput: number; quiet: boolean; quietAfterMinutes: number };
  counts?: TestCounts;
}

/** The JSON view of one of a session's tasks. */
export function taskView(task: SessionTask): TaskView {
  return {
    taskId: task.id,
    description: task.description,
    type: task.type,
    status: task.status,
    exitCode: task.exitCode,
    output: task.hasOutput,
    startedAt: task.startedAt?.toISOString() ?? null,
    ...(task.endedAt ? { endedAt: task.endedAt.toISOString() } : {}),
    ...(task.reason ? { reason: task.reason } : {}),
    ...(task.health ? { health: task.health } : {}),
    ...(task.counts ? { counts: task.counts } : {}),
  };
}

/** A group as list_sessions shows it: id, name and the session's role. */
export function groupView(group: GroupRef): GroupView {
  return { id: group.id, name: group.name, role: group.role };
}

/** What read_session and GET /api/v1/sessions/:id show of a session: its view, state, messages, inFlight, pendingQuestions and group with members. */
export function sessionReadView(read: SessionRead) {
  const { session } = read;
  return {
    session: sessionView(session),
    state: session.state,
    messages: read.messages.map(messageView),
    inFlight: read.inFlight === '' ? null : read.inFlight,
    pendingQuestions: read.pendingQuestions.map(({ id, kind, question, options }) => ({ id, kind, question, options })),
    ...(session.group
      ? { group: { ...groupView(session.group), members: read.groupMembers.slice(0, GROUP_MEMBERS_LIMIT).map(memberView) } }
      : {}),
  };
}

function messageView(message: ChatMessage) {
  return {
    id: message.id,
    role: message.role,
    text: message.text,
    createdAt: message.createdAt?.toISOString() ?? null,
    ...(message.model ? { model: message.model } : {}),
    ...(message.provenance ? { provenance: { ...message.provenance } } : {}),
  };
}

function memberView(member: GroupMember) {
  return { id: member.id, title: member.title, role: member.role, state: member.state, ...(member.archived ? { archived: true as const } : {}) };
}
