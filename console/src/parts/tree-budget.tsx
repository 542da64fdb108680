// A conversation's budget over its delegation tree (docs/adr/0039-tree-budgets.md): what the tree spent, by session,
// relay and provider (the per-turn ledger's sums, with what paired relays reported), the budgets over it with their
// meters, and the person's form to set or remove this conversation's own. Only the person sets one; agents narrow.
import { useState } from 'preact/hooks';
import type { ApiBody, Schemas } from '@relay/user-api';
import { api, seg } from '../api.ts';
import { linkTo } from '../router.ts';
import { useApi } from '../use-api.ts';
import { ErrorNote } from './error-note.tsx';
import { useAction } from './use-action.ts';

type Limits = Required<ApiBody<'/api/v1/sessions/{id}/budget', 'put'>>;

const FIELDS: { key: keyof Limits; label: string; step: string }[] = [
  { key: 'costUsd', label: 'US$', step: '0.01' },
  { key: 'tokens', label: 'tokens', step: '1' },
  { key: 'minutes', label: 'minutes', step: '1' },
  { key: 'sessions', label: 'sessions', step: '1' },
];

const usd = (value: number) => `$${value.toFixed(2)}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

function meterWords(meter: Schemas['TreeUsage']['budgets'][number]['meters'][number]): string {
  const amount = meter.name === 'cost_usd' ? usd : count;
  const name = meter.name === 'cost_usd' ? '' : ` ${meter.name}`;
  return `${amount(meter.used)} of ${amount(meter.limit)}${name} (${Math.round(meter.utilization * 100)} %)`;
}

/** The Budget chip of a conversation: the tree's spend and budgets, and the form for this conversation's budget. */
export function TreeBudget({ sessionId }: { sessionId: string }) {
  const usage = useApi('/api/v1/sessions/{id}/tree-usage', { path: { id: sessionId } }, ['session', 'inbox']);
  const own = usage.data?.budgets.find((budget) => budget.session === sessionId);
  const [draft, setDraft] = useState<Partial<Record<keyof Limits, string>>>({});
  const action = useAction();
  const tree = usage.data;
  if (tree === undefined) return <ErrorNote error={usage.error} />;
  const nearest = tree.budgets[0];
  const summary = nearest
    ? `Budget: ${nearest.meters.map(meterWords).join(', ')}${nearest.state === 'active' ? '' : ` · ${nearest.state}`}`
    : `Tree spent ${usd(tree.totals.costUsd)} · no budget`;
  const value = (key: keyof Limits) => draft[key] ?? (own?.limits[key] === null || own === undefined ? '' : String(own.limits[key]));
  const limits = (): Limits => Object.fromEntries(FIELDS.map(({ key }) => [key, value(key).trim() === '' ? null : Number(value(key))])) as Limits;
  const set = () => action.run(() => api.put('/api/v1/sessions/{id}/budget', { path: { id: sessionId }, body: limits() })).then((done) => done && setDraft({}));
  const remove = () => action.run(() => api.delete('/api/v1/sessions/{id}/budget', { path: { id: sessionId } })).then((done) => done && setDraft({}));
  return (
    <details class="chip budget" data-budget>
      <summary>{summary}</summary>
      {tree.rows.length > 0 ? (
        <table class="tree-usage" aria-label="What the tree spent">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Relay</th>
              <th scope="col">Provider</th>
              <th scope="col">Turns</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {tree.rows.map((row) => (
              <tr key={`${row.relay}/${row.session}/${row.provider}`}>
                <td>{row.session.slice(0, 8)}</td>
                <td>{row.relay}</td>
                <td>{row.provider}</td>
                <td>{row.turns}</td>
                <td>{count(row.inputTokens + row.outputTokens)}</td>
                <td>{usd(row.costUsd)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row" colSpan={3}>
                Total
              </th>
              <td>{tree.totals.turns}</td>
              <td>{count(tree.totals.inputTokens + tree.totals.outputTokens)}</td>
              <td>{usd(tree.totals.costUsd)}</td>
            </tr>
          </tbody>
        </table>
      ) : (
        <p class="muted">The tree has spent nothing.</p>
      )}
      <p class="muted">Sessions started in the tree: {tree.sessionsStarted}.</p>
      <ul>
        {tree.budgets.map((budget) => (
          <li key={budget.session}>
            {budget.session === sessionId ? 'This conversation' : <a {...linkTo(`/sessions/${seg(budget.session)}`)}>A conversation above</a>} (set by{' '}
            {budget.setBy}, {budget.state}): {budget.meters.map(meterWords).join(', ')}
          </li>
        ))}
      </ul>
      <form
        class="switches"
        aria-label="This conversation's budget"
        onSubmit={(event) => {
          event.preventDefault();
          void set();
        }}
      >
        {FIELDS.map(({ key, label, step }) => (
          <label key={key}>
            {label} <input type="number" min="0" step={step} value={value(key)} onInput={(event) => setDraft({ ...draft, [key]: event.currentTarget.value })} />
          </label>
        ))}
        <button type="submit" disabled={action.busy}>
          Set budget
        </button>
        {own ? (
          <button type="button" disabled={action.busy} onClick={() => void remove()}>
            Remove
          </button>
        ) : null}
        <ErrorNote error={action.error} />
      </form>
    </details>
  );
}
