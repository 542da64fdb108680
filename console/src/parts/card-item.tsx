// An approval card (Allow / Deny) or a question card (its options, an answer, Dismiss), decided in place.
import { useState } from 'preact/hooks';
import type { ApiBody, Schemas } from '@relay/user-api';
import { api, seg } from '../api.ts';
import { linkTo } from '../router.ts';
import { ErrorNote } from './error-note.tsx';
import { ago } from './format.ts';
import { useAction } from './use-action.ts';

export function CardItem({ card, sessionTitle }: { card: Schemas['Card']; sessionTitle?: string }) {
  const action = useAction();
  const [answer, setAnswer] = useState('');
  const decide = (body: ApiBody<'/api/v1/cards/{id}', 'post'>) => action.run(() => api.post('/api/v1/cards/{id}', { path: { id: card.id }, body }));
  const headingId = `card-${card.id}`;
  return (
    <article class="card" aria-labelledby={headingId} data-card={card.id}>
      <header>
        <span class="tag">{card.kind === 'approval' ? 'Approval' : 'Question'}</span>
        <h3 id={headingId}>{card.title}</h3>
        <span class="muted">{ago(card.createdAt)}</span>
      </header>
      {sessionTitle !== undefined ? (
        <p class="muted">
          in <a {...linkTo(`/sessions/${seg(card.sessionId)}`)}>{sessionTitle || card.sessionId.slice(0, 8)}</a>
        </p>
      ) : null}
      {card.lines.length > 0 ? (
        <ul class="lines">
          {card.lines.map((line, index) => (
            <li key={index}>{line}</li>
          ))}
        </ul>
      ) : null}
      {card.kind === 'approval' ? (
        <div class="actions">
          <button type="button" class="primary" disabled={action.busy} onClick={() => decide({ decision: 'allow' })}>
            Allow
          </button>
          <button type="button" disabled={action.busy} onClick={() => decide({ decision: 'deny' })}>
            Deny
          </button>
        </div>
      ) : (
        <form
          class="actions"
          onSubmit={(event) => {
            event.preventDefault();
            if (answer.trim() !== '') void decide({ decision: 'answer', answer: answer.trim() });
          }}
        >
          {card.options.map((option) => (
            <button type="button" key={option} disabled={action.busy} onClick={() => decide({ decision: 'answer', choices: [option] })}>
              {option}
            </button>
          ))}
          <label class="grow">
            <span class="visually-hidden">Your answer</span>
            <input value={answer} onInput={(event) => setAnswer(event.currentTarget.value)} placeholder="Your answer" />
          </label>
          <button type="submit" class="primary" disabled={action.busy || answer.trim() === ''}>
            Answer
          </button>
          <button type="button" disabled={action.busy} onClick={() => decide({ decision: 'dismiss' })}>
            Dismiss
          </button>
        </form>
      )}
      <ErrorNote error={action.error} />
    </article>
  );
}
