// An ask (a question an agent asked without blocking): its options, an answer, Dismiss.
import { useState } from 'preact/hooks';
import type { ApiBody, Schemas } from '@relay/user-api';
import { api, seg } from '../api.ts';
import { linkTo } from '../router.ts';
import { ErrorNote } from './error-note.tsx';
import { ago } from './format.ts';
import { useAction } from './use-action.ts';

export function AskItem({ ask, sessionTitle }: { ask: Schemas['Ask']; sessionTitle?: string }) {
  const action = useAction();
  const [answer, setAnswer] = useState('');
  const reply = (body: ApiBody<'/api/v1/asks/{id}', 'post'>) => action.run(() => api.post('/api/v1/asks/{id}', { path: { id: ask.id }, body }));
  const headingId = `ask-${ask.id}`;
  return (
    <article class="card ask" aria-labelledby={headingId} data-ask={ask.id}>
      <header>
        <span class="tag">Ask</span>
        <h3 id={headingId}>{ask.question}</h3>
        <span class="muted">{ago(ask.createdAt)}</span>
      </header>
      {sessionTitle !== undefined ? (
        <p class="muted">
          from <a {...linkTo(`/sessions/${seg(ask.sessionId)}`)}>{sessionTitle || ask.sessionId.slice(0, 8)}</a>
        </p>
      ) : null}
      {ask.detail ? <p>{ask.detail}</p> : null}
      {ask.recommendation ? <p class="muted">Recommended: {ask.recommendation}</p> : null}
      <form
        class="actions"
        onSubmit={(event) => {
          event.preventDefault();
          if (answer.trim() !== '') void reply({ decision: 'answer', answer: answer.trim() });
        }}
      >
        {ask.options.map((option) => (
          <button type="button" key={option} disabled={action.busy} onClick={() => reply({ decision: 'answer', choice: option })}>
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
        <button type="button" disabled={action.busy} onClick={() => reply({ decision: 'dismiss' })}>
          Dismiss
        </button>
      </form>
      <ErrorNote error={action.error} />
    </article>
  );
}
