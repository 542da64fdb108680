/**
 * The user API's answers as zod schemas (docs/adr/0038): the shapes app/views/ makes, named as the OpenAPI document's
 * components. Strict objects: a field a view adds without its schema fails the answer (a 500 and a failing test),
 * never reaches a client undocumented. The routes' own parameters and bodies sit beside their routes.
 */
import { z } from 'zod';
import { CARD_DECISIONS } from '../../app/views/question-view.ts';
import { TURN_STATUSES } from '../../app/views/turn-result.ts';
import { AGENT_LEVELS } from '../../domain/agent-levels.ts';
import { USER_ROLES } from '../../domain/caller.ts';

/** An ISO 8601 time. */
const time = z.string().meta({ format: 'date-time' });
const count = z.number().int();
const idAndTitle = z.strictObject({ id: z.string(), title: z.string() });
const flag = z.literal(true).optional();

export const SESSION_STATES = ['running_turn', 'background_only', 'idle'] as const;

export const TestCounts = z.strictObject({ runner: z.string(), passed: count, failed: count, skipped: count, final: z.boolean() }).meta({ id: 'TestCounts' });

export const Task = z
  .strictObject({
    taskId: z.string(),
    description: z.string(),
    type: z.string(),
    status: z.string(),
    exitCode: count.nullable(),
    output: z.boolean().describe('Whether there is output to read (GET …/tasks/{taskId}/output).'),
    startedAt: time.nullable(),
    endedAt: time.optional(),
    reason: z.string().optional().describe('Why it failed without an exit code.'),
    health: z.strictObject({ minutesSinceOutput: count, quiet: z.boolean(), quietAfterMinutes: count }).optional().describe('While it runs.'),
    counts: TestCounts.optional(),
  })
  .meta({ id: 'Task', description: "A session's background task: running, or ended within the hour." });

const groupShape = { id: z.string(), name: z.string(), role: z.string() };

const sessionShape = {
  id: z.string(),
  title: z.string(),
  provider: z.string(),
  model: z.string(),
  state: z.enum(SESSION_STATES),
  cwd: z.string(),
  repo: z.string().optional().describe("A cloud session's repository, in place of a folder."),
  branch: z.string().optional(),
  lastActivityAt: time.nullable(),
  messageCount: count,
  tasks: z.array(Task),
  group: z.strictObject(groupShape).optional().describe('Its session group and its role there.'),
  mayCreateSessions: flag.describe('The owner let agents in this conversation start sessions.'),
  startedBy: idAndTitle.optional().describe('The conversation whose agent started it.'),
  archived: flag,
};

export const Session = z.strictObject(sessionShape).meta({ id: 'Session', description: 'A session as agents and users see it.' });

export const SessionStatus = z
  .strictObject({
    name: z.enum(['working', 'waiting_for_you', 'idle', 'failed', 'stopped']),
    words: z.string().describe('The words to show: "working", "waiting for you (card)", "idle", "failed: …", "stopped".'),
    waitingFor: z.strictObject({ cards: count, asks: count }).optional(),
    error: z.string().optional().describe('Why the last turn failed, whole.'),
  })
  .meta({ id: 'SessionStatus', description: 'A session as a person reads it at a glance.' });

export const UserSession = z
  .strictObject({
    ...sessionShape,
    mode: z.string().describe('Its relay mode: agent, ask or plan.'),
    external: flag.describe("Its agent runs in the user's own MCP client: nothing is sent to it from the relay."),
    watching: z
      .union([count, z.literal('all')])
      .optional()
      .describe('How many sessions this conversation watches ("all": every one).'),
    watched: flag.describe("One of the user's conversations watches it."),
    status: SessionStatus.optional(),
  })
  .meta({ id: 'UserSession', description: 'A session as the user API shows it to its owner.' });

export const Provenance = z
  .strictObject({
    originRelay: z.string(),
    originSessionId: z.string(),
    originSessionTitle: z.string(),
    model: z.string(),
    hops: count,
    viaRelays: z.array(z.string()),
  })
  .meta({ id: 'Provenance', description: "Where a prompt another relay's agent sent came from." });

export const Message = z
  .strictObject({
    id: z.string(),
    role: z.string(),
    text: z.string(),
    truncated: flag.describe('The text is the first 8,000 characters of `length`; GET …/messages/{messageId} has the whole.'),
    length: count.optional(),
    createdAt: time.nullable(),
    model: z.string().optional(),
    provenance: Provenance.optional(),
    delivery: z
      .enum(['queued', 'delivered', 'failed'])
      .optional()
      .describe('How far a message sent to the session has come; absent on replies and error rows.'),
  })
  .meta({ id: 'Message' });

export const PendingQuestion = z
  .strictObject({ id: z.string(), kind: z.string(), question: z.string(), options: z.array(z.string()), truncated: flag })
  .meta({ id: 'PendingQuestion', description: 'A card a turn waits on (kind ask_user), or a pending ask (kind ask).' });

export const SessionRead = z
  .strictObject({
    session: UserSession,
    state: z.enum(SESSION_STATES),
    status: SessionStatus,
    messages: z.array(Message),
    inFlight: z.string().nullable().describe('The reply being written, as far as it has come.'),
    inFlightTruncated: flag,
    note: z.string().optional(),
    pendingQuestions: z.array(PendingQuestion),
    group: z
      .strictObject({
        ...groupShape,
        members: z.array(z.strictObject({ id: z.string(), title: z.string(), role: z.string(), state: z.enum(SESSION_STATES), archived: flag })),
      })
      .optional(),
  })
  .meta({ id: 'SessionRead', description: 'A session with its last messages, as read_session shows it.' });

export const TurnResult = z
  .strictObject({
    status: z.enum(TURN_STATUSES),
    session: z.string(),
    message_id: z.string(),
    reply: z.strictObject({ text: z.string(), truncated: flag, length: count.optional(), model: z.string() }).optional(),
    error: z.string().optional(),
    errorTruncated: flag,
    pendingQuestions: z.array(PendingQuestion).optional(),
    openUrl: z.string().optional(),
    delivery: z.enum(['queued', 'delivered', 'failed']),
    note: z.string().optional(),
  })
  .meta({
    id: 'TurnResult',
    description: 'Where the turn a message started stands: done with its reply, error, stopped, waiting for an answer, or still queued or running.',
  });

export const Card = z
  .strictObject({
    id: z.string(),
    sessionId: z.string(),
    kind: z.enum(['approval', 'question']),
    title: z.string(),
    lines: z.array(z.string()),
    options: z.array(z.string()),
    status: z.enum(['pending', 'allowed', 'denied', 'answered', 'dismissed', 'cancelled']),
    answer: z.string(),
    choices: z.array(z.string()),
    createdAt: time.nullable(),
    decidedAt: time.nullable(),
  })
  .meta({
    id: 'Card',
    description: `An approval card (decided with ${CARD_DECISIONS.slice(0, 2).join(' or ')}) or a question card (${CARD_DECISIONS.slice(2).join(' or ')}).`,
  });

export const Ask = z
  .strictObject({
    id: z.string(),
    sessionId: z.string().describe('The session the ask is about.'),
    askedBy: z.string().describe('The session that asked.'),
    question: z.string(),
    options: z.array(z.string()),
    recommendation: z.string(),
    detail: z.string(),
    status: z.enum(['pending', 'answered', 'dismissed', 'withdrawn', 'ended']),
    answer: z.string(),
    choice: z.string(),
    via: z.string(),
    createdAt: time.nullable(),
    endedAt: time.nullable(),
  })
  .meta({ id: 'Ask', description: "An agent's question that does not block its turn." });

export const Schedule = z
  .strictObject({
    id: z.string(),
    session: idAndTitle.describe('The conversation it fires into.'),
    setBy: idAndTitle.optional().describe('The conversation that set it, when another one did.'),
    title: z.string(),
    text: z.string(),
    at: time,
    everyMinutes: count,
    once: z.boolean(),
    nextFireAt: time.nullable(),
    lastFiredAt: time.nullable(),
    firedCount: count,
    skippedCount: count.optional(),
    heldForApproval: flag,
    heldSince: time.nullable().optional(),
    heldFireAt: time.nullable().optional().describe('The grid time the held firing stands for.'),
    endedAt: time.optional(),
    endReason: z.string().optional(),
  })
  .meta({ id: 'Schedule' });

export const Subscription = z
  .strictObject({
    id: z.string(),
    relay: z.string().optional().describe('The paired relay whose sessions it watches.'),
    scope: z.literal('all').optional(),
    sessions: z.union([z.literal('all'), z.array(idAndTitle)]),
    events: z.array(z.string()),
    once: z.boolean(),
    match: z.string().optional(),
    stalledMinutes: count,
    heartbeatMinutes: count.optional(),
    digestMinutes: count.optional(),
    quietHours: z.strictObject({ from: z.string(), to: z.string(), tz: z.string() }).optional(),
    exclude: z.array(z.string()).optional(),
    heldCount: count.optional(),
    nextDeliveryAt: time.nullable().optional(),
    ended: flag,
    endedAt: time.optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'Subscription', description: "A subscription in its watcher's list: active, or ended in the last hour with its reason." });

export const Pairing = z
  .strictObject({ name: z.string(), url: z.string(), level: z.enum(AGENT_LEVELS), online: z.boolean(), version: z.string() })
  .meta({ id: 'Pairing', description: 'A paired relay and what its agents may do here.' });

export const UserRole = z.enum(USER_ROLES);

export const User = z
  .strictObject({ id: z.string(), name: z.string(), role: UserRole, createdAt: time })
  .meta({ id: 'User', description: 'A user of the relay (never a token).' });
