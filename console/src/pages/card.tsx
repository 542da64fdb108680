// One card, at /cards/<id>: where an MCP client of the 2026 revision sends the person to decide the card its call
// waits on (the URL of its input_required request). Decided here, as everywhere, through the user API as the person.
import { CardItem } from '../parts/card-item.tsx';
import { ErrorNote } from '../parts/error-note.tsx';
import { useSessionTitles } from '../parts/use-session-titles.ts';
import { linkTo } from '../router.ts';
import { useApi } from '../use-api.ts';

export function CardPage({ id }: { id: string }) {
  // Read by its id: the listing holds only the newest cards, and this one may be older.
  const read = useApi('/api/v1/cards/{id}', { path: { id } }, 'inbox');
  const card = read.data?.card;
  // No such card of this user: a sentence, not an error.
  const unknown = read.error?.code === 'REMOTE_RELAY_NOT_FOUND';
  const titles = useSessionTitles(card === undefined ? [] : [card.sessionId]);
  const sessionTitle = card === undefined ? '' : (titles.get(card.sessionId) ?? '');
  return (
    <main id="main">
      <h1>Card</h1>
      <ErrorNote error={unknown ? undefined : read.error} />
      {read.loading && !read.data ? <p class="muted">Loading…</p> : null}
      {unknown ? (
        <p class="muted">
          No card of yours has this id. The <a {...linkTo('/inbox')}>Inbox</a> lists every card waiting for you.
        </p>
      ) : null}
      {card !== undefined && card.status === 'pending' ? <CardItem card={card} sessionTitle={sessionTitle} /> : null}
      {card !== undefined && card.status !== 'pending' ? (
        <p role="status" data-card-status={card.status}>
          “{card.title}”: {card.status}. The call that waits on it goes on when its client makes it again; you can close this page.
        </p>
      ) : null}
    </main>
  );
}
