// The ⏰ list: every schedule of yours, its next firing, whether it is held for approval, who set it; Cancel.
import { api, seg } from '../api.ts';
import { AlarmIcon } from '../parts/alarm-icon.tsx';
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import { useAction } from '../parts/use-action.ts';
import { linkTo } from '../router.ts';
import { useApi } from '../use-api.ts';

export function Schedules() {
  const list = useApi('/api/v1/schedules', {}, 'sessions');
  const action = useAction();
  const active = (list.data?.schedules ?? []).filter((schedule) => !schedule.endedAt);
  return (
    <main id="main">
      <h1>
        <AlarmIcon /> Schedules
      </h1>
      <ErrorNote error={list.error} />
      <ErrorNote error={action.error} />
      {list.data && active.length === 0 ? <p class="muted">No schedule is active.</p> : null}
      {active.length > 0 ? (
        <table class="schedules">
          <thead>
            <tr>
              <th scope="col">Schedule</th>
              <th scope="col">Into</th>
              <th scope="col">Next firing</th>
              <th scope="col">Set by</th>
              <th scope="col">
                <span class="visually-hidden">Cancel</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {active.map((schedule) => (
              <tr key={schedule.id} data-schedule={schedule.id}>
                <td>
                  <strong>{schedule.title || schedule.text}</strong>
                  <div class="muted small">
                    {schedule.once ? 'once' : `every ${schedule.everyMinutes} min`} · fired {schedule.firedCount}×
                  </div>
                </td>
                <td>
                  <a {...linkTo(`/sessions/${seg(schedule.session.id)}`)}>{schedule.session.title}</a>
                </td>
                <td>{schedule.heldForApproval ? `held for approval (${when(schedule.heldFireAt)})` : when(schedule.nextFireAt)}</td>
                <td>{schedule.setBy ? schedule.setBy.title : 'the session itself'}</td>
                <td>
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() => action.run(() => api.delete('/api/v1/schedules/{id}', { path: { id: schedule.id } }))}
                  >
                    Cancel
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {list.data?.more ? (
        <p class="muted" role="status">
          You have more schedules than show here: the newest 500 do.
        </p>
      ) : null}
    </main>
  );
}
