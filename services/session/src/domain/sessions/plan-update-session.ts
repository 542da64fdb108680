import { checkModel } from '../catalogue/check-model.ts';
import { CLOUD_PROVIDER, findProvider, restartsForFolder, thinkingApplies, windowApplies, type ProviderInfo } from '../catalogue/provider-catalogue.ts';
import type { GroupInfo } from '../groups/group.ts';
import { THINKING_DISPLAYS, type Session, type SessionChanges, type ThinkingDisplay } from './session.ts';
import { archived, busy, forbidden, invalidInput, notFound, unsupported } from '../errors.ts';
import { findNamedGroup } from '../groups/groups.ts';
import { checkFolder } from './folders.ts';
import { checkEffort, checkMode, checkTitle, nothingDone } from './session-settings.ts';

/** The grant kind an Allow on update_session's card records, per conversation and relay. */
export const UPDATE_OTHERS_GRANT = 'update_others';
/** The relay a grant for this relay is recorded under. */
export const THIS_RELAY = 'this';

/** The settings update_session takes, in the order `changed` lists them. */
export const UPDATE_SETTINGS = ['model', 'effort', 'mode', 'auto_compact_window', 'title', 'group', 'thinking_enabled', 'thinking_display', 'cwd'] as const;
export type UpdateSetting = (typeof UPDATE_SETTINGS)[number];

/** Auto-compaction windows a family offers, in tokens; a number in between is taken as the nearest. */
const WINDOWS: Record<'claude' | 'deepseek', readonly number[]> = {
  claude: [100_000, 200_000, 400_000, 1_000_000],
  deepseek: [100_000, 200_000, 400_000],
};
/** On DeepSeek, a window of 0 means 400,000 tokens (spec, update_session). */
const DEEPSEEK_ZERO_WINDOW = 400_000;

/** An update_session call; an undefined setting is left as it is. */
export interface UpdateSessionInput {
  userId: string;
  callerSessionId: string;
  sessionId: string;
  model?: string;
  effort?: string;
  mode?: string;
  autoCompactWindow?: string;
  title?: string;
  /** A group id or name; a name the relay does not have makes a group; '' takes the session out of its group. */
  group?: string;
  thinkingEnabled?: boolean;
  thinkingDisplay?: string;
  cwd?: string;
  /** The user allowed this conversation to change sessions it did not start (the Allow card). */
  allowed: boolean;
  /** Set when an agent on a paired relay calls: that relay and its conversation (no calling session here). */
  remoteCaller?: { relay: string; sessionId: string };
  dryRun: boolean;
}

/** What the rules of update_session read. */
export interface UpdateSessionContext {
  target: Session | undefined;
  caller: Session | undefined;
  providers: readonly ProviderInfo[];
  /** The user's groups, latest activity first. */
  groups: readonly GroupInfo[];
  /**
   * What holds the target's folder (decisions.md, REMOTE_RELAY_BUSY): a turn queued, running or waiting for an
   * answer, or a background task that still runs; false when nothing does.
   */
  targetAtWork: 'turn' | 'task' | false;
  /** The caller's conversation holds the Allow for sessions it did not start on this relay. */
  hasGrant: boolean;
  /** The conversation that started the target from a paired relay, as its first prompt recorded it; null when none did. */
  remoteStarter: { relay: string; sessionId: string } | null;
  relayName: string;
  allowedRoots: readonly string[];
}

/** How the session's group changes. */
export type GroupMove = { kind: 'join'; group: GroupInfo } | { kind: 'create'; name: string } | { kind: 'leave' };

/** What update_session would write, and what it reports. */
export interface UpdateSessionPlan {
  target: Session;
  changes: SessionChanges;
  changed: UpdateSetting[];
  groupMove: GroupMove | undefined;
  /** Set when the folder changes: whether the worker restarts in it. */
  relaunched: boolean | undefined;
  notes: string[];
  /** The user must Allow this conversation to change the session first. */
  needsAllow: boolean;
  /** The call carries the Allow: record it, so later changes on this relay need no card. */
  recordGrant: boolean;
}

/**
 * The rules of update_session, pure: the whole call is checked (model, effort, group, folder, whether the
 * user must be asked) before anything changes; settings that change nothing on the session's provider are
 * not written and the note says so; a call that would change nothing asks nobody.
 */
export function planUpdateSession(input: UpdateSessionInput, context: UpdateSessionContext): UpdateSessionPlan {
  const { target, caller, providers, relayName } = context;
  const nothing = nothingDone('update');
  if (target === undefined || target.userId !== input.userId) {
    throw notFound(`No session '${input.sessionId}' on relay "${relayName}". ${nothing}`, { field: 'session' });
  }
  if (caller !== undefined && target.id === caller.id) {
    throw forbidden(`An agent cannot change the settings of the conversation it runs in. ${nothing}`);
  }
  if (target.archived) throw archived(`Session "${target.title}" is archived. ${nothing}`);
  const given = UPDATE_SETTINGS.filter((setting) => valueOf(input, setting) !== undefined);
  if (given.length === 0) {
    throw invalidInput(`update_session needs at least one setting: ${UPDATE_SETTINGS.join(', ')}. ${nothing}`, {
      field: 'settings',
      settings: [...UPDATE_SETTINGS],
    });
  }

  const provider = findProvider(providers, target.provider);
  const agentSettings = given.filter((setting) => setting !== 'title' && setting !== 'group' && setting !== 'mode');
  if (provider === undefined && agentSettings.length > 0) {
    throw unsupported(
      `Session "${target.title}" is an external session: its agent runs outside this relay, so ${agentSettings.join(', ')} cannot be set here. ${nothing}`,
    );
  }

  const changes: SessionChanges = {};
  const notes: string[] = [];
  const setIfDifferent = <K extends keyof SessionChanges>(key: K, value: NonNullable<SessionChanges[K]>) => {
    if (target[key as keyof Session] !== value) changes[key] = value;
  };

  if (input.model !== undefined && provider !== undefined) {
    const check = checkModel({ providers, provider, model: input.model, relayName, action: 'update' });
    setIfDifferent('model', check.model);
    if (check.modelNote !== '') notes.push(check.modelNote);
  }
  if (input.effort !== undefined && provider !== undefined) setIfDifferent('effort', checkEffort(provider, input.effort, 'update'));
  if (input.mode !== undefined) setIfDifferent('mode', checkMode(input.mode, 'update'));
  if (input.autoCompactWindow !== undefined && provider !== undefined) {
    const window = resolveWindow(input.autoCompactWindow, provider);
    if (window.value !== undefined) setIfDifferent('autoCompactWindow', window.value);
    if (window.note !== '') notes.push(window.note);
  }
  if (input.title !== undefined) setIfDifferent('title', checkTitle(input.title, 'update'));
  const groupMove = input.group === undefined ? undefined : resolveGroupMove(input.group, target, context);
  if (provider !== undefined && (input.thinkingEnabled !== undefined || input.thinkingDisplay !== undefined)) {
    if (input.thinkingDisplay !== undefined && !(THINKING_DISPLAYS as readonly string[]).includes(input.thinkingDisplay)) {
      throw invalidInput(`thinking_display '${input.thinkingDisplay}' is not one of ${THINKING_DISPLAYS.join(', ')}. ${nothing}`, {
        field: 'thinking_display',
        allowed: [...THINKING_DISPLAYS],
      });
    }
    if (thinkingApplies(provider.family)) {
      if (input.thinkingEnabled !== undefined) setIfDifferent('thinkingEnabled', input.thinkingEnabled);
      if (input.thinkingDisplay !== undefined) setIfDifferent('thinkingDisplay', input.thinkingDisplay as ThinkingDisplay);
    } else if (provider.family === 'deepseek') {
      notes.push('A DeepSeek session always thinks: thinking_enabled and thinking_display change nothing there.');
    } else if (!notes.some((note) => note.includes('Claude sessions only'))) {
      notes.push(claudeOnlyNote(provider));
    }
  }

  let relaunched: boolean | undefined;
  if (input.cwd !== undefined && provider !== undefined) {
    if (provider.id === CLOUD_PROVIDER) {
      throw invalidInput(`${provider.name} works on a clone of its repository and has no folder: cwd cannot be set. ${nothing}`, {
        field: 'cwd',
      });
    }
    const cwd = checkFolder(input.cwd, context.allowedRoots);
    if (cwd !== target.cwd) {
      if (context.targetAtWork) {
        const work = context.targetAtWork === 'turn' ? 'a turn is queued or running there' : 'a background task it started still runs there';
        throw busy(`The session cannot move to another folder now: ${work}. ${nothing}`);
      }
      changes.cwd = cwd;
      relaunched = target.workerStarted && restartsForFolder(provider);
      if (!target.workerStarted) notes.push('The session has not started yet: it keeps the folder for its first start.');
      else if (!relaunched) notes.push('The session was not restarted: the folder is saved for its next start.');
    }
  }

  const changed = UPDATE_SETTINGS.filter((setting) => (setting === 'group' ? groupMove !== undefined : Object.hasOwn(changes, FIELD[setting])));
  // A paired relay's agent changes freely only a session its own conversation started here (that relay's rules
  // hold the Allow, asked on a card there); this relay's agents, only sessions their conversation started.
  const remote = input.remoteCaller;
  const startedByRemote = remote !== undefined && context.remoteStarter?.relay === remote.relay && context.remoteStarter.sessionId === remote.sessionId;
  const mustAsk =
    changed.length > 0 && (remote !== undefined ? !startedByRemote : caller !== undefined && target.startedBySessionId !== caller.id && !context.hasGrant);
  return {
    target,
    changes,
    changed,
    groupMove,
    relaunched,
    notes,
    needsAllow: mustAsk && !input.allowed,
    recordGrant: mustAsk && input.allowed,
  };
}

const FIELD: Record<UpdateSetting, keyof SessionChanges> = {
  model: 'model',
  effort: 'effort',
  mode: 'mode',
  auto_compact_window: 'autoCompactWindow',
  title: 'title',
  group: 'groupId',
  thinking_enabled: 'thinkingEnabled',
  thinking_display: 'thinkingDisplay',
  cwd: 'cwd',
};

const INPUT_KEY: Record<UpdateSetting, keyof UpdateSessionInput> = {
  model: 'model',
  effort: 'effort',
  mode: 'mode',
  auto_compact_window: 'autoCompactWindow',
  title: 'title',
  group: 'group',
  thinking_enabled: 'thinkingEnabled',
  thinking_display: 'thinkingDisplay',
  cwd: 'cwd',
};

function valueOf(input: UpdateSessionInput, setting: UpdateSetting): unknown {
  return input[INPUT_KEY[setting]];
}

function claudeOnlyNote(provider: ProviderInfo): string {
  const article = /^[aeiou]/i.test(provider.name) ? 'an' : 'a';
  return `auto_compact_window and the thinking settings apply to Claude sessions only (Claude API included) and change nothing on ${article} ${provider.name} session.`;
}

/**
 * The window to store for an auto_compact_window value: 'auto', or the nearest window the family offers
 * (0 on DeepSeek = 400,000); undefined with a note when the provider does not use it.
 */
export function resolveWindow(value: string, provider: ProviderInfo): { value: string | undefined; note: string } {
  const text = value.trim().toLowerCase();
  const parsed = /^(\d[\d,_]*)(k?)$/.exec(text);
  if (text !== 'auto' && parsed === null) {
    throw invalidInput(`auto_compact_window '${value}' is not "auto" or a number of tokens, e.g. 200000. ${nothingDone('update')}`, {
      field: 'auto_compact_window',
    });
  }
  if (!windowApplies(provider.family)) return { value: undefined, note: claudeOnlyNote(provider) };
  const family = provider.family === 'deepseek' ? 'deepseek' : 'claude';
  const deepseekNote = family === 'deepseek' ? 'On a DeepSeek session the window takes effect (0 means 400,000 tokens); thinking stays on. ' : '';
  if (parsed === null) return { value: 'auto', note: deepseekNote.trim() };
  const tokens = Number(parsed[1]!.replace(/[,_]/g, '')) * (parsed[2] === 'k' ? 1000 : 1);
  const asked = family === 'deepseek' && tokens === 0 ? DEEPSEEK_ZERO_WINDOW : tokens;
  const nearest = WINDOWS[family].reduce((best, window) => (Math.abs(window - asked) < Math.abs(best - asked) ? window : best));
  const nearestNote =
    nearest === asked
      ? ''
      : `auto_compact_window ${tokens.toLocaleString('en-US')} was taken as ${nearest.toLocaleString('en-US')}, the nearest window ${provider.name} offers.`;
  return { value: String(nearest), note: `${deepseekNote}${nearestNote}`.trim() };
}

function resolveGroupMove(value: string, target: Session, context: UpdateSessionContext): GroupMove | undefined {
  if (value.trim() === '') return target.groupId === null ? undefined : { kind: 'leave' };
  const found = findNamedGroup({ groups: context.groups, value, relayName: context.relayName, action: 'update' });
  if (found === undefined) return { kind: 'create', name: value.trim() };
  return found.id === target.groupId ? undefined : { kind: 'join', group: found };
}
