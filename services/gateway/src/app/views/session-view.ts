/**
 * A session as agents and users see it, in list_sessions, read_session and the user API alike.
 */
import {
  SessionOrigin,
  SessionState,
  type ChatMessage,
  type GroupMember,
  type GroupRef,
  type PendingQuestion,
  type Session,
  type Task,
  type TestCounts,
} from '@relay/proto/relay/session/v1/session';
import { groupOf, type SessionRead } from '../../domain/answers.ts';
import { GROUP_MEMBERS_LIMIT } from '../../domain/limits.ts';
import type { WatchMarks } from '../../domain/watch-marks.ts';
import { sessionStatus, type SessionStatus } from './session-status.ts';
import { deliveryName } from './delivery-view.ts';

export const SESSION_SCOPES = ['active', 'archived', 'all'] as const;
export type SessionScope = (typeof SESSION_SCOPES)[number];

export type SessionStateName = 'running_turn' | 'background_only' | 'idle';

// A state this gateway does not know yet (a newer session service) shows as idle.
const STATES: Record<number, SessionStateName> = {
  [SessionState.SESSION_STATE_UNSPECIFIED]: 'idle',
  [SessionState.SESSION_STATE_RUNNING_TURN]: 'running_turn',
  [SessionState.SESSION_STATE_BACKGROUND_ONLY]: 'background_only',
  [SessionState.SESSION_STATE_IDLE]: 'idle',
};

/** A session's (or group member's) state by name. */
export function sessionStateName(state: SessionState): SessionStateName {
  return STATES[state] ?? 'idle';
}

/** An external session: an MCP client its user runs, whose turn is the call in flight. */
export function isExternal(session: Pick<Session, 'origin'>): boolean {
  return session.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL;
}

export interface SessionView {
  id: string;
  title: string;
  provider: string;
  model: string;
  state: SessionStateName;
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

/**
 * A session as the user API shows it to its owner: the view agents get, plus its relay mode, whether it is external
 * (its agent runs in the user's own MCP client: nothing is sent to it from here), from the user's subscriptions
 * whether it is watched and how many sessions it watches, and its status when the caller worked it out.
 */
export function userSessionView(
  session: Session,
  marks: WatchMarks = {},
  status?: SessionStatus,
): SessionView & WatchMarks & { mode: string; external?: true; status?: SessionStatus } {
  return { ...sessionView(session), mode: session.mode, ...(isExternal(session) ? { external: true as const } : {}), ...marks, ...(status ? { status } : {}) };
}

export interface GroupView {
  id: string;
  name: string;
  role: string;
}

/** The JSON view of `session`; the optional fields appear only when they say something. */
export function sessionView(session: Session): SessionView {
  const group = groupOf(session);
  return {
    id: session.id,
    title: session.title,
    provider: session.provider,
    model: session.model,
    state: sessionStateName(session.state),
    cwd: session.cwd,
    ...(session.repo ? { repo: session.repo, branch: session.branch } : {}),
    lastActivityAt: session.lastActivityAt?.toISOString() ?? null,
    messageCount: session.messageCount,
    tasks: session.tasks.map(taskView),
    ...(group ? { group: groupView(group) } : {}),
    ...(session.mayCreateSessions ? { mayCreateSessions: true as const } : {}),
    ...(session.startedBySessionId ? { startedBy: { id: session.startedBySessionId, title: session.startedByTitle } } : {}),
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
export function taskView(task: Task): TaskView {
  return {
    taskId: task.id,
    description: task.description,
    type: task.type,
    status: task.status,
    exitCode: task.exitCode ?? null,
    output: task.hasOutput,
    startedAt: task.startedAt?.toISOString() ?? null,
    ...(task.endedAt ? { endedAt: task.endedAt.toISOString() } : {}),
    ...(task.reason ? { reason: task.reason } : {}),
    ...(task.health ? { health: { ...task.health } } : {}),
    ...(task.counts ? { counts: { ...task.counts } } : {}),
  };
}

/** A group as list_sessions shows it: id, name and the session's role. */
export function groupView(group: GroupRef): GroupView {
  return { id: group.id, name: group.name, role: group.role };
}

/**
 * The most characters of one message's text (and of a reply in flight) a session read shows, so one long
 * prompt cannot flood an agent's context; the user reads the whole of a message at GET
 * /api/v1/sessions/:id/messages/:messageId.
 */
export const MESSAGE_TEXT_LIMIT = 8000;

/**
 * What read_session and GET /api/v1/sessions/:id show of a session: its view, state, messages (each text at most
 * MESSAGE_TEXT_LIMIT characters; a longer one has truncated and length, and a note says where the whole is),
 * inFlight, pendingQuestions and group with members.
 */
export function sessionReadView(read: SessionRead) {
  const { session } = read;
  const messages = read.messages.map((message) => boundedMessageView(message, MESSAGE_TEXT_LIMIT));
  const inFlight = boundedText(read.inFlight, MESSAGE_TEXT_LIMIT);
  const cut = messages.filter((message) => message.truncated === true).length;
  const group = groupOf(session);
  const asks = read.pendingQuestions.filter((question) => question.kind === 'ask').length;
  return {
    session: sessionView(session),
    state: sessionStateName(session.state),
    status: sessionStatus({ state: sessionStateName(session.state), cards: read.pendingQuestions.length - asks, asks, lastTurn: session.lastTurn }),
    messages,
    inFlight: read.inFlight === '' ? null : inFlight.text,
    ...(inFlight.truncated ? { inFlightTruncated: true as const } : {}),
    ...(cut > 0 ? { note: truncatedNote(cut, session.id) } : {}),
    pendingQuestions: read.pendingQuestions.map(pendingQuestionView),
    ...(group ? { group: { ...groupView(group), members: read.groupMembers.slice(0, GROUP_MEMBERS_LIMIT).map(memberView) } } : {}),
  };
}

/** One message with the whole of its text (GET /api/v1/sessions/:id/messages/:messageId). */
export function messageView(message: ChatMessage) {
  return boundedMessageView(message, Number.POSITIVE_INFINITY);
}

function boundedMessageView(message: ChatMessage, limit: number) {
  const bounded = boundedText(message.text, limit);
  const delivery = deliveryName(message.delivery);
  return {
    id: message.id,
    role: message.role,
    text: bounded.text,
    ...(bounded.truncated ? { truncated: true as const, length: message.text.length } : {}),
    createdAt: message.createdAt?.toISOString() ?? null,
    ...(message.model ? { model: message.model } : {}),
    ...(message.provenance ? { provenance: { ...message.provenance } } : {}),
    ...(delivery === undefined ? {} : { delivery }),
  };
}

function memberView(member: GroupMember) {
  return {
    id: member.id,
    title: member.title,
    role: member.role,
    state: sessionStateName(member.state),
    ...(member.archived ? { archived: true as const } : {}),
  };
}

/** A question a turn waits on (read_session, and send, create_session and wait while one waits), its text bounded. */
export function pendingQuestionView({ id, kind, question, options }: PendingQuestion) {
  const bounded = boundedText(question, MESSAGE_TEXT_LIMIT);
  return { id, kind, question: bounded.text, options, ...(bounded.truncated ? { truncated: true as const } : {}) };
}

/**
 * A text a result echoes on its own (a reply, an answer), bounded as read_session bounds a message: a longer one
 * keeps its first MESSAGE_TEXT_LIMIT characters and has truncated and length (the whole text's).
 */
export function boundedField(text: string): { text: string; truncated?: true; length?: number } {
  const bounded = boundedText(text, MESSAGE_TEXT_LIMIT);
  return bounded.truncated ? { text: bounded.text, truncated: true, length: text.length } : { text };
}

/**
 * Several texts of one result item (an ask's question, detail and answer), each bounded to MESSAGE_TEXT_LIMIT; when
 * any was cut, truncated and lengths (the whole length of each one cut).
 */
export function boundedFields<K extends string>(fields: Record<K, string>): Record<K, string> & { truncated?: true; lengths?: Partial<Record<K, number>> } {
  const texts = {} as Record<K, string>;
  const lengths: Partial<Record<K, number>> = {};
  for (const key of Object.keys(fields) as K[]) {
    const bounded = boundedText(fields[key], MESSAGE_TEXT_LIMIT);
    texts[key] = bounded.text;
    if (bounded.truncated) lengths[key] = fields[key].length;
  }
  return Object.keys(lengths).length === 0 ? texts : { ...texts, truncated: true as const, lengths };
}

/** The first `limit` characters of `text` (never half of a surrogate pair), and whether that is all of it. */
export function boundedText(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  const code = text.charCodeAt(limit - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
  return { text: text.slice(0, end), truncated: true };
}

function truncatedNote(count: number, sessionId: string): string {
  const which = count === 1 ? '1 message is longer' : `${count} messages are longer`;
  return (
    `${which} than ${MESSAGE_TEXT_LIMIT.toLocaleString('en-US')} characters: its text here is the first ${MESSAGE_TEXT_LIMIT.toLocaleString('en-US')} ` +
    `(truncated: true; length is the whole text's). The session's user reads the whole text with relay session show ${sessionId.slice(0, 8)} --message ID ` +
    '(GET /api/v1/sessions/{session}/messages/{message} in the user API).'
  );
}
