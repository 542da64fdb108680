// A conversation: its messages (an agent's prompt with its "↗ from …" badge, relay events and schedule rows set
// apart), the reply being written, pending cards and asks inline, tasks with their health and the end of their
// output, the watching chip, the owner's switches (the relay mode shown as it is), Stop and a message box.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '@relay/user-api';
import { api, seg } from '../api.ts';
import { AlarmIcon } from '../parts/alarm-icon.tsx';
import { AskItem } from '../parts/ask-item.tsx';
import { CardItem } from '../parts/card-item.tsx';
import { DeliveryMark } from '../parts/delivery-mark.tsx';
import { TreeBudget } from '../parts/tree-budget.tsx';
import { ErrorNote } from '../parts/error-note.tsx';
import { ago, fromBadge, statusLabel, statusName, watchingLabel, when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { useTitle } from '../parts/use-title.ts';
import { linkTo } from '../router.ts';

/** The live parts a conversation's cards and asks follow. */
const WAITING_PARTS = ['session', 'inbox'] as const;

/** How many lines of a task's output the conversation shows. */
const TAIL_LINES = 20;
/** How often a running task's output is read again: its output changes without the conversation changing. */
const TAIL_REFRESH_MS = 2000;
import { useApi } from '../use-api.ts';

export function Conversation({ id }: { id: string }) {
  const read = useApi('/api/v1/sessions/{id}', { path: { id }, query: { last: 100 } }, 'session');
  // What waits for the user here changes with the Inbox (every waiting card and ask), not always with the session.
  const cards = useApi('/api/v1/cards', { query: { session: id, pending: '1' } }, WAITING_PARTS);
  const asks = useApi('/api/v1/asks', { query: { session: id } }, WAITING_PARTS);
  const session = read.data?.session;
  const pendingAsks = (asks.data?.asks ?? []).filter((ask) => ask.status === 'pending');
  const pendingCards = cards.data?.cards ?? [];
  useTitle(session ? session.title || session.id.slice(0, 8) : undefined);
  useFollowNewest(read.data?.messages.length ?? 0, read.data?.inFlight?.length ?? 0, pendingCards.length + pendingAsks.length);

  return (
    <main id="main" class="conversation">
      <p class="crumbs">
        <a {...linkTo('/')}>Sessions</a> /
      </p>
      <ErrorNote error={read.error} />
      {session ? (
        <>
          <div class="page-head">
            <div>
              <h1>{session.title || session.id.slice(0, 8)}</h1>
              <p class="muted">
                {session.provider}
                {session.model ? ` · ${session.model}` : ''} ·{' '}
                <span class={`state state-${statusName(session)}`} data-status={statusName(session)}>
                  {statusLabel(session)}
                </span>
                {session.external ? ' · external' : ''}
                {session.group ? ` · group ${session.group.name}` : ''}
                {session.startedBy ? (
                  <>
                    {' '}
                    · via agent · <a {...linkTo(`/sessions/${seg(session.startedBy.id)}`)}>“{session.startedBy.title}”</a>
                  </>
                ) : null}
                {session.archived ? ' · archived' : ''}
                {session.watched ? <span class="tag watched">watched</span> : null}
              </p>
            </div>
            {session.watching !== undefined ? <Watching sessionId={id} watching={session.watching} /> : null}
          </div>
          <Switches id={id} mode={session.mode} mayCreateSessions={session.mayCreateSessions === true} running={session.state === 'running_turn'} />
          <SessionActions id={id} title={session.title} group={session.group?.name ?? ''} archived={session.archived === true} />
          <TreeBudget sessionId={id} />
          {session.tasks.length > 0 ? <Tasks sessionId={id} tasks={session.tasks} /> : null}
        </>
      ) : read.loading ? (
        <p class="muted">Loading…</p>
      ) : null}
      {read.data ? (
        <ol class="messages" aria-label="Messages">
          {read.data.messages.map((message) => (
            <MessageRow key={message.id} message={message} sessionId={id} />
          ))}
          {read.data.inFlight ? (
            <li class="message assistant writing" aria-live="polite">
              <div class="who">writing…</div>
              <div class="text">{read.data.inFlight}</div>
            </li>
          ) : null}
        </ol>
      ) : null}
      {pendingCards.length + pendingAsks.length > 0 ? (
        <section aria-label="Waiting for you" class="waiting">
          {pendingCards.map((card) => (
            <CardItem key={card.id} card={card} />
          ))}
          {pendingAsks.map((ask) => (
            <AskItem key={ask.id} ask={ask} />
          ))}
        </section>
      ) : null}
      {session && !session.archived ? (
        session.external ? (
          <p class="muted external-note" data-external-note>
            This is an external session: its agent runs in your own MCP client, which reads and writes here through the relay. Write to it in that client;
            nothing is sent to it from this page.
          </p>
        ) : (
          <Composer id={id} />
        )
      ) : null}
    </main>
  );
}

/** How close to the page's end (px) counts as reading the newest: a reply being written is followed from there. */
const NEAR_END_PX = 120;

/**
 * Keeps the newest message in view, above the message box that stays at the window's bottom: a new message, card or
 * ask scrolls to the page's end (where the box sits in its place and covers nothing); a reply being written is
 * followed while the person reads at the end, not when they scrolled up to read something older.
 */
function useFollowNewest(messages: number, writing: number, waiting: number): void {
  const nearEnd = useRef(true);
  useEffect(() => {
    const look = () => {
      nearEnd.current = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - NEAR_END_PX;
    };
    window.addEventListener('scroll', look, { passive: true });
    return () => window.removeEventListener('scroll', look);
  }, []);
  const toEnd = () => window.scrollTo({ top: document.documentElement.scrollHeight });
  useEffect(toEnd, [messages, waiting]);
  useEffect(() => {
    if (nearEnd.current) toEnd();
  }, [writing]);
}

function MessageRow({ message, sessionId }: { message: Schemas['Message']; sessionId: string }) {
  // The relay's note that a turn failed: why, and what the person can do (sending again, a setting).
  if (message.role === 'error') {
    return (
      <li class="message row-error" data-role="error">
        <span class="row-mark" aria-hidden="true">
          ⚠
        </span>
        <span class="visually-hidden">Turn failed:</span>
        <span class="text">{message.text}</span>
        <span class="muted small">{ago(message.createdAt)}</span>
      </li>
    );
  }
  if (message.role === 'event' || message.role === 'schedule') {
    return (
      <li class={`message row-${message.role}`} data-role={message.role}>
        <span class="row-mark">{message.role === 'schedule' ? <AlarmIcon /> : <span aria-hidden="true">◆</span>}</span>
        <span class="visually-hidden">{message.role === 'schedule' ? 'Schedule:' : 'Relay event:'}</span>
        <span class="text">{withOarExplained(message.text)}</span>
        <span class="muted small">{ago(message.createdAt)}</span>
        <DeliveryMark delivery={message.delivery} />
      </li>
    );
  }
  const who = message.role === 'assistant' ? (message.model ? `assistant · ${message.model}` : 'assistant') : message.role === 'agent' ? 'agent' : 'you';
  return (
    <li class={`message ${message.role}`} data-role={message.role}>
      <div class="who">
        {who}
        {message.provenance && (message.provenance.hops > 0 || message.provenance.originSessionId !== '') ? (
          <span class="badge">{fromBadge(message.provenance)}</span>
        ) : null}
        <span class="muted small"> {ago(message.createdAt)}</span>
        <DeliveryMark delivery={message.delivery} />
      </div>
      {message.truncated ? <WholeText message={message} sessionId={sessionId} /> : <div class="text">{message.text}</div>}
    </li>
  );
}

/** What "OAR" in a relay event's or schedule's first line means, on hover and to a screen reader's abbreviation key. */
const OAR_MEANS = 'OAR: the relay software. This row is an automated message the relay wrote into the conversation, not one from you; it approves nothing.';

/** The row's text with each "OAR" explained (an abbreviation with its meaning). */
function withOarExplained(text: string) {
  const parts = text.split(/\bOAR\b/);
  return parts.flatMap((part, index) =>
    index === 0
      ? [part]
      : [
          <abbr key={index} title={OAR_MEANS}>
            OAR
          </abbr>,
          part,
        ],
  );
}

/** A message cut at 8,000 characters, with a button that reads the whole of it. */
function WholeText({ message, sessionId }: { message: Schemas['Message']; sessionId: string }) {
  const [whole, setWhole] = useState<string | undefined>(undefined);
  const action = useAction();
  return (
    <>
      <div class="text">{whole ?? `${message.text}…`}</div>
      {whole === undefined ? (
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            action.run(async () =>
              setWhole((await api.get('/api/v1/sessions/{id}/messages/{messageId}', { path: { id: sessionId, messageId: message.id } })).message.text),
            )
          }
        >
          Show all {message.length?.toLocaleString()} characters
        </button>
      ) : null}
      <ErrorNote error={action.error} />
    </>
  );
}

/** Rename, move to a group (or out of one), archive and unarchive. */
function SessionActions({ id, title, group, archived }: { id: string; title: string; group: string; archived: boolean }) {
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [fields, setFields] = useState({ title, group });
  if (!editing) {
    return (
      <div class="session-actions">
        <button type="button" onClick={() => (setFields({ title, group }), setEditing(true))}>
          Rename or regroup
        </button>
        <button
          type="button"
          disabled={action.busy}
          onClick={() => action.run(() => api.post(archived ? '/api/v1/sessions/{id}/unarchive' : '/api/v1/sessions/{id}/archive', { path: { id } }))}
        >
          {archived ? 'Unarchive' : 'Archive'}
        </button>
        <ErrorNote error={action.error} />
      </div>
    );
  }
  return (
    <form
      class="session-actions"
      aria-label="Rename or regroup"
      onSubmit={async (event) => {
        event.preventDefault();
        const change: { title?: string; group?: string } = {};
        if (fields.title.trim() !== title) change.title = fields.title.trim();
        if (fields.group.trim() !== group) change.group = fields.group.trim();
        if (Object.keys(change).length === 0 || (await action.run(() => api.patch('/api/v1/sessions/{id}/settings', { path: { id }, body: change }))))
          setEditing(false);
      }}
    >
      <label>
        Title <input required value={fields.title} onInput={(event) => setFields({ ...fields, title: event.currentTarget.value })} />
      </label>
      <label>
        Group <input value={fields.group} placeholder="none" onInput={(event) => setFields({ ...fields, group: event.currentTarget.value })} />
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        Save
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** The session's background tasks: status, health while they run, test counts, and the end of each one's output. */
function Tasks({ sessionId, tasks }: { sessionId: string; tasks: Schemas['Task'][] }) {
  const running = tasks.filter((task) => task.status === 'running').length;
  return (
    <section class="tasks" aria-label="Background tasks">
      <h2>
        {tasks.length} background task{tasks.length === 1 ? '' : 's'}
        {running > 0 ? <span class="muted small"> · {running} running</span> : null}
      </h2>
      <ul>
        {tasks.map((task) => (
          <li key={task.taskId} class="task">
            <details open={task.status === 'running'}>
              <summary>
                <strong>{task.description || task.taskId}</strong> <span class={`task-status status-${task.status}`}>{task.status}</span>
                {task.exitCode !== null ? ` · exit code ${task.exitCode}` : ''}
                {task.health ? <span class={task.health.quiet ? 'error' : 'muted'}> · {healthLabel(task.health)}</span> : null}
                {task.counts
                  ? ` · ${task.counts.passed} passed, ${task.counts.failed} failed${task.counts.skipped ? `, ${task.counts.skipped} skipped` : ''}`
                  : ''}
                {task.reason ? ` · ${task.reason}` : ''}
              </summary>
              {task.output || task.status === 'running' ? (
                <TaskTail sessionId={sessionId} taskId={task.taskId} running={task.status === 'running'} />
              ) : (
                <p class="muted small">No output to show.</p>
              )}
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** How long a running task has been silent, against the relay's quiet setting. */
function healthLabel(health: NonNullable<Schemas['Task']['health']>): string {
  const since = health.minutesSinceOutput === 0 ? 'writing output' : `last output ${health.minutesSinceOutput} min ago`;
  return health.quiet ? `quiet: ${since} (quiet after ${health.quietAfterMinutes} min)` : since;
}

/** The last lines of a task's output, read again whenever the conversation changes and, while it runs, every few seconds. */
function TaskTail({ sessionId, taskId, running }: { sessionId: string; taskId: string; running: boolean }) {
  const output = useApi(
    '/api/v1/sessions/{id}/tasks/{taskId}/output',
    { path: { id: sessionId, taskId }, query: { lines: TAIL_LINES } },
    'session',
    running ? TAIL_REFRESH_MS : undefined,
  );
  return (
    <>
      <ErrorNote error={output.error} />
      {output.data ? (
        <>
          {output.data.truncated ? <p class="muted small">The last {output.data.tail.length} lines:</p> : null}
          {output.data.tail.length > 0 ? (
            <pre class="tail" aria-label={`The end of the output of ${output.data.task.description || taskId}`} tabIndex={0}>
              {output.data.tail.join('\n')}
            </pre>
          ) : null}
          {(output.data.notes ?? []).map((note) => (
            <p class="muted small" key={note}>
              {note}
            </p>
          ))}
        </>
      ) : null}
    </>
  );
}

function Switches({ id, mode: readMode, mayCreateSessions, running }: { id: string; mode: string; mayCreateSessions: boolean; running: boolean }) {
  const action = useAction();
  // The answer to a switch shows at once; the next read of the session (live) says the same.
  const [chosen, setChosen] = useState<{ mode: string; over: string } | undefined>(undefined);
  const mode = chosen !== undefined && chosen.over === readMode ? chosen.mode : readMode;
  const setOptions = (body: { mode?: string; may_create_sessions?: boolean }) =>
    action.run(async () => {
      const answer = await api.patch('/api/v1/sessions/{id}', { path: { id }, body });
      setChosen({ mode: answer.mode, over: readMode });
    });
  return (
    <div class="switches">
      <div role="group" aria-label="Relay mode" class="segmented">
        {['agent', 'ask', 'plan'].map((value) => (
          <button type="button" key={value} aria-pressed={mode === value} disabled={action.busy} onClick={() => setOptions({ mode: value })}>
            {value}
          </button>
        ))}
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={mayCreateSessions}
          disabled={action.busy}
          onChange={(event) => setOptions({ may_create_sessions: event.currentTarget.checked })}
        />
        may start sessions
      </label>
      <button type="button" disabled={action.busy || !running} onClick={() => action.run(() => api.post('/api/v1/sessions/{id}/stop', { path: { id } }))}>
        Stop
      </button>
      <ErrorNote error={action.error} />
    </div>
  );
}

/** Each event a subscription wakes its watcher for, in words (the spec's names, for those not listed). */
const EVENT_WORDS: Record<string, string> = {
  question_asked: 'a question is asked',
  question_answered: 'a question is answered',
  error: 'an error',
  turn_end: 'a turn ends',
  subagent_finished: 'a sub-agent finishes',
  task_started: 'a task starts',
  task_finished: 'a task ends',
  task_failed: 'a task fails',
  all_idle: 'all are idle',
  heartbeat: 'a heartbeat',
};

/** What a subscription watches and how, in words: "“Build”: a turn ends, a task fails; a digest every 30 min; …". */
function subscriptionWords(subscription: Schemas['Subscription']): string {
  const what = subscription.sessions === 'all' ? 'All sessions' : subscription.sessions.map((session) => `“${session.title}”`).join(', ');
  const options = [
    subscription.events
      .map((event) => (event === 'stalled' ? `it is silent ${subscription.stalledMinutes} min` : (EVENT_WORDS[event] ?? event.replace(/_/g, ' '))))
      .join(', '),
    subscription.once ? 'once, then it ends' : '',
    subscription.match ? `only when it says “${subscription.match}”` : '',
    subscription.digestMinutes ? `a digest every ${subscription.digestMinutes} min` : '',
    subscription.quietHours ? `quiet ${subscription.quietHours.from}–${subscription.quietHours.to} ${subscription.quietHours.tz}` : '',
    subscription.heartbeatMinutes ? `a heartbeat every ${subscription.heartbeatMinutes} min` : '',
    subscription.exclude?.length ? `except ${subscription.exclude.length} session${subscription.exclude.length === 1 ? '' : 's'} it leaves out` : '',
  ];
  return `${what}${subscription.relay ? ` on ${subscription.relay}` : ''}: ${options.filter((part) => part !== '').join('; ')}`;
}

/** The spec's watching chip: "watching N sessions", its subscriptions in words, each with Unsubscribe. */
function Watching({ sessionId, watching }: { sessionId: string; watching: number | 'all' }) {
  const list = useApi('/api/v1/sessions/{id}/subscriptions', { path: { id: sessionId } }, 'session');
  const action = useAction();
  const active = (list.data?.subscriptions ?? []).filter((subscription) => !subscription.ended);
  if (active.length === 0) return null;
  return (
    <details class="chip">
      <summary>{watchingLabel(watching)}</summary>
      <ul>
        {active.map((subscription) => (
          <li key={subscription.id}>
            <div>
              {subscriptionWords(subscription)}
              {subscription.heldCount ? (
                <div class="muted small">
                  {subscription.heldCount} event{subscription.heldCount === 1 ? '' : 's'} held, coming {when(subscription.nextDeliveryAt)}
                </div>
              ) : null}
            </div>
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                action.run(() =>
                  api.delete('/api/v1/sessions/{id}/subscriptions/{subscriptionId}', { path: { id: sessionId, subscriptionId: subscription.id } }),
                )
              }
            >
              Unsubscribe
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={action.error} />
    </details>
  );
}

function Composer({ id }: { id: string }) {
  const action = useAction();
  const [text, setText] = useState('');
  const send = async () => {
    if (text.trim() === '') return;
    if (await action.run(() => api.post('/api/v1/sessions/{id}/messages', { path: { id }, body: { text } }))) setText('');
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label for="message" class="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        rows={3}
        placeholder="Write a message (Ctrl+Enter sends)"
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <button type="submit" class="primary" disabled={action.busy || text.trim() === ''}>
        Send
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}
