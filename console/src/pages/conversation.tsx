// A conversation: its messages (an agent's prompt with its "↗ from …" badge, relay events and schedule rows set
// apart), the reply being written, pending cards and asks inline, tasks, the watching chip, the owner's switches,
// Stop and a message box.
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, patch, post, seg } from '../api.ts';
import { AskItem } from '../parts/ask-item.tsx';
import { CardItem } from '../parts/card-item.tsx';
import { ErrorNote } from '../parts/error-note.tsx';
import { ago, fromBadge, stateLabel, when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { linkTo } from '../router.ts';
import type { Ask, Card, Message, SessionRead } from '../types.ts';
import { useApi } from '../use-api.ts';

export function Conversation({ id }: { id: string }) {
  const read = useApi<SessionRead>(`/api/v1/sessions/${seg(id)}?last=100`, 'session');
  const cards = useApi<{ cards: Card[] }>(`/api/v1/cards?session=${seg(id)}&pending=1`, 'session');
  const asks = useApi<{ asks: Ask[] }>(`/api/v1/asks?session=${seg(id)}`, 'session');
  const session = read.data?.session;
  const pendingAsks = (asks.data?.asks ?? []).filter((ask) => ask.status === 'pending');
  const pendingCards = cards.data?.cards ?? [];
  const end = useRef<HTMLDivElement>(null);
  const count = (read.data?.messages.length ?? 0) + (read.data?.inFlight?.length ?? 0);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [count]);

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
                {session.provider} · {session.model} · <span class={`state state-${session.state}`}>{stateLabel(session.state)}</span>
                {session.group ? ` · group ${session.group.name}` : ''}
                {session.startedBy ? (
                  <>
                    {' '}
                    · via agent · <a {...linkTo(`/sessions/${seg(session.startedBy.id)}`)}>“{session.startedBy.title}”</a>
                  </>
                ) : null}
                {session.archived ? ' · archived' : ''}
              </p>
            </div>
            <Watching sessionId={id} />
          </div>
          <Switches id={id} mayCreateSessions={session.mayCreateSessions === true} running={session.state === 'running_turn'} />
          <SessionActions id={id} title={session.title} group={session.group?.name ?? ''} archived={session.archived === true} />
          {session.tasks.length > 0 ? <Tasks read={read.data!} /> : null}
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
      <div ref={end} />
      {session && !session.archived ? <Composer id={id} /> : null}
    </main>
  );
}

function MessageRow({ message, sessionId }: { message: Message; sessionId: string }) {
  if (message.role === 'event' || message.role === 'schedule') {
    return (
      <li class={`message row-${message.role}`} data-role={message.role}>
        <span class="row-mark" aria-hidden="true">
          {message.role === 'schedule' ? '⏰' : '◆'}
        </span>
        <span class="visually-hidden">{message.role === 'schedule' ? 'Schedule:' : 'Relay event:'}</span>
        <span class="text">{message.text}</span>
        <span class="muted small">{ago(message.createdAt)}</span>
      </li>
    );
  }
  const who = message.role === 'assistant' ? (message.model ? `assistant · ${message.model}` : 'assistant') : message.role === 'agent' ? 'agent' : 'you';
  return (
    <li class={`message ${message.role}`} data-role={message.role}>
      <div class="who">
        {who}
        {message.provenance && (message.provenance.hops > 0 || message.provenance.originSessionId !== "") ? <span class="badge">{fromBadge(message.provenance)}</span> : null}
        <span class="muted small"> {ago(message.createdAt)}</span>
      </div>
      {message.truncated ? <WholeText message={message} sessionId={sessionId} /> : <div class="text">{message.text}</div>}
    </li>
  );
}

/** A message cut at 8,000 characters, with a button that reads the whole of it. */
function WholeText({ message, sessionId }: { message: Message; sessionId: string }) {
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
            action.run(async () => setWhole((await get<{ message: Message }>(`/api/v1/sessions/${seg(sessionId)}/messages/${seg(message.id)}`)).message.text))
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
        <button type="button" disabled={action.busy} onClick={() => action.run(() => post(`/api/v1/sessions/${seg(id)}/${archived ? 'unarchive' : 'archive'}`))}>
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
        const change: Record<string, string> = {};
        if (fields.title.trim() !== title) change.title = fields.title.trim();
        if (fields.group.trim() !== group) change.group = fields.group.trim();
        if (Object.keys(change).length === 0 || (await action.run(() => patch(`/api/v1/sessions/${seg(id)}/settings`, change)))) setEditing(false);
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

function Tasks({ read }: { read: SessionRead }) {
  return (
    <details class="tasks">
      <summary>
        {read.session.tasks.length} background task{read.session.tasks.length === 1 ? '' : 's'}
      </summary>
      <ul>
        {read.session.tasks.map((task) => (
          <li key={task.taskId}>
            <strong>{task.description || task.taskId}</strong> — {task.status}
            {task.exitCode !== null ? ` (exit ${task.exitCode})` : ''}
            {task.health ? ` · ${task.health.quiet ? 'quiet' : 'active'}, last output ${task.health.minutesSinceOutput} min ago` : ''}
            {task.reason ? ` · ${task.reason}` : ''}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Switches({ id, mayCreateSessions, running }: { id: string; mayCreateSessions: boolean; running: boolean }) {
  const action = useAction();
  const [mode, setMode] = useState<string | undefined>(undefined);
  const setOptions = (body: Record<string, unknown>) =>
    action.run(async () => {
      const answer = await patch<{ mode: string }>(`/api/v1/sessions/${seg(id)}`, body);
      setMode(answer.mode);
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
        <input type="checkbox" checked={mayCreateSessions} disabled={action.busy} onChange={(event) => setOptions({ may_create_sessions: event.currentTarget.checked })} />
        may start sessions
      </label>
      <button type="button" disabled={action.busy || !running} onClick={() => action.run(() => post(`/api/v1/sessions/${seg(id)}/stop`))}>
        Stop
      </button>
      <ErrorNote error={action.error} />
    </div>
  );
}

interface Subscription {
  id: string;
  scope?: 'all';
  sessions: 'all' | { id: string; title: string }[];
  events: string[];
  digestMinutes?: number;
  quietHours?: { start: string; end: string; timezone?: string };
  exclude?: { id: string; title: string }[];
  ended?: true;
  heldCount?: number;
  nextDeliveryAt?: string | null;
}

/** The spec's watching chip: "watching N sessions", its subscriptions in words, each with Unsubscribe. */
function Watching({ sessionId }: { sessionId: string }) {
  const list = useApi<{ subscriptions: Subscription[] }>(`/api/v1/sessions/${seg(sessionId)}/subscriptions`, 'session');
  const action = useAction();
  const active = (list.data?.subscriptions ?? []).filter((subscription) => !subscription.ended);
  if (active.length === 0) return null;
  const everything = active.some((subscription) => subscription.sessions === 'all');
  const watched = new Set(active.flatMap((subscription) => (subscription.sessions === 'all' ? [] : subscription.sessions.map((session) => session.id))));
  return (
    <details class="chip">
      <summary>{everything ? 'watching all sessions' : `watching ${watched.size} session${watched.size === 1 ? '' : 's'}`}</summary>
      <ul>
        {active.map((subscription) => (
          <li key={subscription.id}>
            <div>
              {subscription.sessions === 'all' ? 'All sessions' : subscription.sessions.map((session) => `“${session.title}”`).join(', ')}: {subscription.events.join(', ')}
              {subscription.digestMinutes ? `; a digest every ${subscription.digestMinutes} min` : ''}
              {subscription.quietHours ? `; quiet ${subscription.quietHours.start}–${subscription.quietHours.end}` : ''}
              {subscription.exclude?.length ? `; except ${subscription.exclude.map((session) => `“${session.title}”`).join(', ')}` : ''}
              {subscription.heldCount ? ` · ${subscription.heldCount} held, coming ${when(subscription.nextDeliveryAt)}` : ''}
            </div>
            <button type="button" disabled={action.busy} onClick={() => action.run(() => del(`/api/v1/sessions/${seg(sessionId)}/subscriptions/${seg(subscription.id)}`))}>
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
    if (await action.run(() => post(`/api/v1/sessions/${seg(id)}/messages`, { text }))) setText('');
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
