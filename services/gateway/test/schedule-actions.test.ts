import { describe, expect, it } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import type { ActionDefinition } from '../src/app/relay-tool/define-action.ts';
import { listSchedules } from '../src/app/relay-tool/actions/list-schedules.ts';
import { schedule } from '../src/app/relay-tool/actions/schedule.ts';
import { unschedule } from '../src/app/relay-tool/actions/unschedule.ts';
import type { ToolArguments } from '../src/domain/tool-arguments.ts';
import type { CreateScheduleRequest, Schedule } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { AgentLevel } from '@relay/proto/relay/pairing/v1/pairing_service';
import { CardKind, CardStatus, type AwaitCardResponse, type Card } from '@relay/proto/relay/question/v1/question_service';
import { SessionOrigin } from '@relay/proto/relay/session/v1/session';

/** Calls an action's handler as dispatch does: with its own definition in the context. */
const call = (action: ActionDefinition, args: ToolArguments, context: Omit<ActionContext, 'action'>) => action.handler(args, { ...context, action });

const NEXT = new Date('2026-11-02T02:00:00.000Z');
const HELD_SINCE = new Date('2026-11-01T02:00:00.000Z');

function stored(over: Partial<Schedule> = {}): Schedule {
  return {
    id: 'sch_3f9c2a1e7b04',
    userId: 'u1',
    title: 'Nightly review',
    text: 'Review yesterday',
    targetSessionId: 'caller',
    targetSessionTitle: 'Desk',
    settingSessionId: 'caller',
    settingSessionTitle: 'Desk',
    at: NEXT,
    everyMinutes: 1440,
    once: false,
    nextFireAt: NEXT,
    lastFiredAt: undefined,
    firedCount: 0,
    skippedCount: 0,
    heldForApproval: false,
    heldSince: undefined,
    heldFireAt: undefined,
    endedAt: undefined,
    endReason: '',
    ...over,
  };
}

/** A context whose owners record what they were asked to do. */
function contextWith(
  options: { mode?: string; agentSessions?: boolean; decision?: CardStatus; listed?: Schedule[]; targetArchived?: boolean; targetExternal?: boolean } = {},
) {
  const did: string[] = [];
  const card = (status: CardStatus): Card => ({
    id: 'card_1',
    userId: 'u1',
    sessionId: 'caller',
    kind: CardKind.CARD_KIND_APPROVAL,
    title: '',
    lines: [],
    options: [],
    status,
    answer: '',
    choices: [],
    createdAt: undefined,
    decidedAt: undefined,
  });
  const context = {
    caller: { userId: 'u1', sessionId: 'caller' },
    relayName: 'desk',
    paired: [
      {
        name: 'build-box',
        url: 'https://build-box.example.com',
        online: true,
        version: '0.9.19',
        level: AgentLevel.AGENT_LEVEL_FULL,
        ownerUserId: 'u1',
        pairedAt: undefined,
      },
    ],
    settings: { agentSessionsEnabled: options.agentSessions ?? true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 },
    signal: new AbortController().signal,
    progress: async () => undefined,
    sessions: {
      getConversation: async () => ({
        session: { id: 'caller', title: 'Desk', model: 'script-1', mode: options.mode ?? 'agent', origin: SessionOrigin.SESSION_ORIGIN_HOSTED },
        hasRunningTurn: true,
        turnProvenance: { hops: 1, viaRelays: ['lab'] },
        startedSessions: 0,
      }),
      readSession: async ({ sessionId: id }: { sessionId: string }) => ({
        session: {
          id,
          title: 'Other',
          archived: options.targetArchived ?? false,
          origin: options.targetExternal ? SessionOrigin.SESSION_ORIGIN_EXTERNAL : SessionOrigin.SESSION_ORIGIN_HOSTED,
        },
      }),
      countAgentPrompt: async ({ dryRun }: { dryRun: boolean }) => {
        did.push(dryRun ? 'guard check' : 'guard count');
        return { sent: 1, allowed: 30, usedUp: false };
      },
      grantAgentPrompts: async () => undefined,
    },
    questions: {
      raiseCard: async (request: { title: string }) => {
        did.push(`card: ${request.title}`);
        return { card: card(CardStatus.CARD_STATUS_PENDING) };
      },
      awaitCard: async function* (): AsyncIterable<AwaitCardResponse> {
        if (options.decision) yield { card: card(options.decision) };
      },
    },
    schedules: {
      createSchedule: async (request: CreateScheduleRequest) => {
        const { targetSessionId, targetSessionTitle, settingSessionId, settingSessionTitle, provenance } = request;
        did.push(
          request.dryRun ? `dry run → ${targetSessionId}` : `create → ${targetSessionId} hops ${provenance?.hops} via ${provenance?.viaRelays.join(',')}`,
        );
        return { schedule: request.dryRun ? undefined : stored({ targetSessionId, targetSessionTitle, settingSessionId, settingSessionTitle }) };
      },
      listSchedules: async () => ({ schedules: options.listed ?? [] }),
      endSchedule: async ({ scheduleId }: { scheduleId: string }) => {
        did.push(`end ${scheduleId}`);
        return { schedule: stored({ endedAt: NEXT, endReason: 'unscheduled' }) };
      },
    },
  } as unknown as ActionContext;
  return { context, did };
}

const nightly: ToolArguments = { title: 'Nightly review', text: 'Review yesterday', at: '2026-11-02T02:00:00Z', every_minutes: 1440 };

describe('schedule', () => {
  it('sets a schedule into the own conversation: neither a card nor the loop guard', async () => {
    const { context, did } = contextWith();
    const result = await call(schedule, nightly, context);
    expect(result).toMatchObject({
      ok: true,
      relay: 'desk',
      summary: 'schedule → desk: every 1440 min, next 2026-11-02T02:00:00.000Z (sch_3f9c2a1e7b04)',
      schedule_id: 'sch_3f9c2a1e7b04',
      schedule: { id: 'sch_3f9c2a1e7b04', title: 'Nightly review', everyMinutes: 1440, once: false, nextFireAt: '2026-11-02T02:00:00.000Z' },
    });
    expect(String(result.note)).toContain('UTC');
    expect(did).toEqual(['dry run → caller', 'create → caller hops 1 via lab']);
  });

  it('for another session: card in ask mode, then the loop guard counted once', async () => {
    const { context, did } = contextWith({ mode: 'ask', decision: CardStatus.CARD_STATUS_ALLOWED });
    const result = await call(schedule, { ...nightly, session: 'other' }, context);
    expect(result.summary).toContain('into session "Other"');
    expect(did).toEqual([
      'dry run → other',
      'card: Schedule a prompt on desk into "Other": "Nightly review"',
      'guard check',
      'guard count',
      'create → other hops 1 via lab',
    ]);
  });

  it('schedules into an external target: its firings are written into its conversation for its agent', async () => {
    const { context, did } = contextWith({ targetExternal: true });
    const result = await call(schedule, { ...nightly, session: 'other' }, context);
    expect(result.summary).toContain('into session "Other"');
    expect(did.filter((step) => step.startsWith('create'))).toEqual(['create → other hops 1 via lab']);
  });

  it.each([
    ['neither at nor every_minutes', { title: 't', text: 'x' }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['no title', { text: 'x', every_minutes: 5 }, {}, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a paired relay', { ...nightly, relay: 'build-box' }, {}, 'REMOTE_RELAY_UNSUPPORTED'],
    ['agent sessions off, even for the own conversation', nightly, { agentSessions: false }, 'REMOTE_RELAY_DISABLED'],
    ['an archived target', { ...nightly, session: 'other' }, { targetArchived: true }, 'REMOTE_RELAY_ARCHIVED'],
    ['Deny on the card', nightly, { mode: 'plan', decision: CardStatus.CARD_STATUS_DENIED }, 'REMOTE_RELAY_PERMISSION'],
  ])('refuses %s and creates nothing', async (_name, args, options, code) => {
    const { context, did } = contextWith(options);
    await expect(call(schedule, args as ToolArguments, context)).rejects.toMatchObject({ code });
    expect(did.filter((step) => step.startsWith('create'))).toEqual([]);
  });
});

describe('list_schedules and unschedule', () => {
  it('lists with setBy, skippedCount and held fields only when they apply', async () => {
    const listed = [
      stored(),
      stored({
        id: 'sch_2',
        targetSessionId: 'other',
        targetSessionTitle: 'Other',
        skippedCount: 2,
        heldForApproval: true,
        heldSince: HELD_SINCE,
        heldFireAt: HELD_SINCE,
      }),
      stored({ id: 'sch_3', endedAt: NEXT, endReason: 'fired', once: true, everyMinutes: 0 }),
    ];
    const result = await call(listSchedules, {}, contextWith({ listed }).context);
    expect(result.summary).toBe('list_schedules → desk: 3 schedules, 2 active');
    const [own, other, ended] = result.schedules as Record<string, unknown>[];
    expect(own).not.toHaveProperty('setBy');
    expect(own).not.toHaveProperty('skippedCount');
    expect(other).toMatchObject({
      setBy: { id: 'caller', title: 'Desk' },
      skippedCount: 2,
      heldForApproval: true,
      heldSince: HELD_SINCE.toISOString(),
      heldFireAt: HELD_SINCE.toISOString(),
      nextFireAt: NEXT.toISOString(),
    });
    expect(own).not.toHaveProperty('heldFireAt');
    expect(ended).toMatchObject({ endReason: 'fired', nextFireAt: null });
  });

  it('unschedule ends an active schedule of the conversation; an unknown one is NOT_FOUND before any card', async () => {
    const { context, did } = contextWith({ listed: [stored()], mode: 'ask', decision: CardStatus.CARD_STATUS_ALLOWED });
    await expect(call(unschedule, { schedule_id: 'sch_nope' }, context)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(did).toEqual([]);
    const result = await call(unschedule, { schedule_id: 'sch_3f9c2a1e7b04' }, context);
    expect(result).toMatchObject({ summary: 'unschedule → desk: ended "Nightly review" (sch_3f9c2a1e7b04)', schedule: { endReason: 'unscheduled' } });
    expect(did).toEqual(['card: End the schedule "Nightly review" on desk', 'end sch_3f9c2a1e7b04']);
  });
});
