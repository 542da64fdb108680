// The shapes of the user API's answers that the console reads (the gateway's views, as JSON).

export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  hops: number;
  viaRelays: string[];
}

export interface Task {
  taskId: string;
  description: string;
  type: string;
  status: string;
  exitCode: number | null;
  output: boolean;
  startedAt: string | null;
  endedAt?: string;
  reason?: string;
  health?: { minutesSinceOutput: number; quiet: boolean; quietAfterMinutes: number };
  counts?: TestCounts;
}

export interface TestCounts {
  runner: string;
  passed: number;
  failed: number;
  skipped: number;
  final: boolean;
}

/** GET /api/v1/sessions/:id/tasks/:taskId/output: the end of a task's output, as read_task_output answers it. */
export interface TaskOutput {
  task: { id: string; description: string; status: string; exitCode: number | null };
  tail: string[];
  truncated: boolean;
  stall?: { minutes: number; quiet: boolean; quietAfterMinutes: number };
  counts?: TestCounts;
  notes?: string[];
}

export interface SessionView {
  id: string;
  title: string;
  provider: string;
  model: string;
  state: 'running_turn' | 'background_only' | 'idle';
  cwd: string;
  lastActivityAt: string | null;
  messageCount: number;
  tasks: Task[];
  group?: { id: string; name: string; role: string };
  mayCreateSessions?: true;
  startedBy?: { id: string; title: string };
  archived?: true;
  /** The relay mode of this conversation. */
  mode: 'agent' | 'ask' | 'plan';
  /** How many sessions this conversation watches ("all": every one). */
  watching?: number | 'all';
  /** One of the user's conversations watches it. */
  watched?: true;
  /** Its agent runs in the user's own MCP client: nothing is sent to it from the console. */
  external?: true;
  /** What a person reads at a glance: working, waiting for you (card, ask), idle, failed (with the error), stopped. */
  status?: SessionStatus;
}

export interface SessionStatus {
  name: 'working' | 'waiting_for_you' | 'idle' | 'failed' | 'stopped';
  words: string;
  waitingFor?: { cards: number; asks: number };
  error?: string;
}

export interface Message {
  id: string;
  role: string;
  text: string;
  createdAt: string | null;
  model?: string;
  provenance?: Provenance;
  /** The text is the first 8,000 characters of `length`; GET …/messages/:id has the whole. */
  truncated?: true;
  length?: number;
  /** How far a message sent to the session has come; absent on replies and error rows. */
  delivery?: 'queued' | 'delivered' | 'failed';
}

export interface SessionRead {
  session: SessionView;
  state: SessionView['state'];
  status?: SessionStatus;
  messages: Message[];
  inFlight: string | null;
  pendingQuestions: { id: string; kind: string; question: string; options: string[] }[];
}

export interface Card {
  id: string;
  sessionId: string;
  kind: 'approval' | 'question';
  title: string;
  lines: string[];
  options: string[];
  status: string;
  answer: string;
  choices: string[];
  createdAt: string | null;
  decidedAt: string | null;
}

export interface Ask {
  id: string;
  sessionId: string;
  askedBy: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  status: string;
  createdAt: string | null;
}

export interface Schedule {
  id: string;
  session: { id: string; title: string };
  setBy?: { id: string; title: string };
  title: string;
  text: string;
  at: string;
  everyMinutes: number;
  once: boolean;
  nextFireAt: string | null;
  lastFiredAt: string | null;
  firedCount: number;
  heldForApproval?: true;
  heldFireAt?: string | null;
  endedAt?: string;
  endReason?: string;
}

export interface Me {
  user: { id: string; name: string; role: 'admin' | 'member' };
}

export interface RelayInfo {
  name: string;
  version: string;
}

/** What /api/v1/events says in each update: a digest per part, and the Inbox's count. */
export interface LiveUpdate {
  sessions: string;
  inbox: string;
  inboxCount: number;
  session?: string;
}

/** An MCP client's sign-in request, as the consent page shows it (GET /api/v1/oauth/authorization). */
export interface OAuthAuthorization {
  client: { id: string; name: string; uri: string | null; hasMetadataDocument: boolean };
  redirectUri: string;
  resource: string;
}
