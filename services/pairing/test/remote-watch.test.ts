// Which of our sessions' events a paired relay's watch keeps, and whether it asks for the computed ones.
import { describe, expect, it } from 'vitest';
import { watchComputes, watchKeeps, type RemoteEventInput, type RemoteWatch } from '../src/domain/remote-watch.ts';

const watch = (fields: Partial<RemoteWatch> = {}): RemoteWatch => ({
  relay: 'desk',
  id: 'sub_1',
  userId: 'u1',
  scope: 'sessions',
  sessions: [{ id: 's1', title: 'Nightly deploy' }],
  exclude: [],
  events: ['error'],
  stalledMinutes: 0,
  heartbeatMinutes: 0,
  ...fields,
});
const event = (fields: Partial<RemoteEventInput> = {}): RemoteEventInput => ({
  id: 'e1',
  kind: 'archived',
  userId: 'u1',
  sessionId: 's1',
  text: '',
  status: '',
  refId: '',
  occurredAt: new Date('2026-11-30T12:00:00Z'),
  ...fields,
});

describe('watchKeeps: archives', () => {
  it('keeps the archive of a listed session whatever kinds the watch takes, and no other', () => {
    expect(watchKeeps(watch(), event())).toBe(true);
    expect(watchKeeps(watch(), event({ sessionId: 's2' }))).toBe(false);
    expect(watchKeeps(watch(), event({ userId: 'u2' }))).toBe(false);
  });

  it('keeps none for a watch of all sessions, which keeps going', () => {
    expect(watchKeeps(watch({ scope: 'all', sessions: [] }), event())).toBe(false);
  });
});

describe('watchComputes', () => {
  it('is true for the default events, stalled, all_idle or a heartbeat, and false otherwise', () => {
    expect(watchComputes(watch({ events: [] }))).toBe(true);
    expect(watchComputes(watch({ events: ['stalled'] }))).toBe(true);
    expect(watchComputes(watch({ events: ['turn_end', 'all_idle'] }))).toBe(true);
    expect(watchComputes(watch({ events: ['turn_end'], heartbeatMinutes: 30 }))).toBe(true);
    expect(watchComputes(watch({ events: ['turn_end', 'error'] }))).toBe(false);
  });
});
