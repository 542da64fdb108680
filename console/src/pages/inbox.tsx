// The Inbox: every card and ask waiting for you across your sessions, answered in place.
import { AskItem } from '../parts/ask-item.tsx';
import { CardItem } from '../parts/card-item.tsx';
import { ErrorNote } from '../parts/error-note.tsx';
import { useSessionTitles } from '../parts/use-session-titles.ts';
import { useApi } from '../use-api.ts';

export function Inbox() {
  const inbox = useApi('/api/v1/inbox', {}, 'inbox');
  const cards = inbox.data?.cards ?? [];
  const asks = inbox.data?.asks ?? [];
  const titles = useSessionTitles([...cards.map((card) => card.sessionId), ...asks.map((ask) => ask.sessionId)]);
  return (
    <main id="main">
      <h1>Inbox</h1>
      <ErrorNote error={inbox.error} />
      {inbox.loading && !inbox.data ? <p class="muted">Loading…</p> : null}
      {inbox.data && cards.length + asks.length === 0 ? <p class="muted">Nothing is waiting for you.</p> : null}
      {inbox.data?.more ? (
        <p class="muted" role="status">
          More is waiting than shows here: the newest 500 cards and 500 asks do. Those older show as you decide these.
        </p>
      ) : null}
      <section aria-label="Waiting for you" class="waiting">
        {cards.map((card) => (
          <CardItem key={card.id} card={card} sessionTitle={titles.get(card.sessionId) ?? ''} />
        ))}
        {asks.map((ask) => (
          <AskItem key={ask.id} ask={ask} sessionTitle={titles.get(ask.sessionId) ?? ''} />
        ))}
      </section>
    </main>
  );
}
