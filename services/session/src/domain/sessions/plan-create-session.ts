import { MAX_SESSIONS_AT_WORK } from '@relay/errors';
import { checkModel } from '../catalogue/check-model.ts';
import { CLOUD_PROVIDER, DEFAULT_PROVIDER, findProvider, type ProviderInfo } from '../catalogue/provider-catalogue.ts';
import type { GroupInfo } from '../groups/group.ts';
import type { Provenance } from './conversation.ts';
import type { Session } from './session.ts';
import type { RelayPlace } from '../settings/relay-settings.ts';
import { activeLimit, invalidInput, nesting, unsupported } from '../errors.ts';
import { findNamedGroup, GROUP_ID_PREFIX } from '../groups/groups.ts';
import { checkFolder, isInsideAny, normaliseFolder } from './folders.ts';
import { checkEffort, checkMode, checkTitle, nothingDone, requireAvailable, titleFromText } from './session-settings.ts';

/** The provider create_session never starts: an OpenAI Image chat. */
const IMAGE_PROVIDER = 'openai-image';

/** A create_session call as the gateway passes it; '' means "not given". */
export interface CreateSessionInput {
  userId: string;
  /** The conversation whose agent starts it; '' when the user does. */
  callerSessionId: string;
  title: string;
  provider: string;
  model: string;
  effort: string;
  mode: string;
  cwd: string;
  repo: string;
  branch: string;
  group: string;
  text: string;
  provenance: Provenance | null;
  /** Paired relays a user's first message mentions (the gateway knows them): they are unlocked in the new conversation. */
  mentionedRelays?: string[];
  dryRun: boolean;
}

/** What the rules of create_session read: the calling conversation and the relay's providers and groups. */
export interface CreateSessionContext {
  caller: Session | undefined;
  providers: readonly ProviderInfo[];
  /** The user's groups, latest activity first. */
  groups: readonly GroupInfo[];
  /** Sessions the caller started that are at work now. */
  atWork: number;
  /** Sessions the caller started so far. */
  startedCount: number;
  relay: RelayPlace;
}

/** Where the new session goes: nowhere, into an existing group, or into a new group headed by the caller. */
export type GroupPlacement = { kind: 'none' } | { kind: 'join'; group: GroupInfo } | { kind: 'start' };

/** The session create_session would start, every argument resolved and checked. */
export interface CreateSessionPlan {
  title: string;
  provider: ProviderInfo;
  model: string;
  effort: string;
  mode: Session['mode'];
  cwd: string;
  repo: string;
  branch: string;
  placement: GroupPlacement;
  modelNote: string;
  firstStartedByCaller: boolean;
}

const REPO_PATTERN = /^[\w.-]+\/[\w.-]+$/;

/**
 * The rules of create_session ("create_session", "Putting it into a group", "Rules for sessions on this
 * relay"), pure: what the agent leaves out follows the calling session as far as this relay offers it; the
 * model is checked before availability; every refusal comes before anything is written.
 */
export function planCreateSession(input: CreateSessionInput, context: CreateSessionContext): CreateSessionPlan {
  const { caller, providers, relay } = context;
  const nothing = nothingDone('create');
  if (input.text.trim() === '') {
    throw invalidInput(`text is required: the first prompt of the new session, standing on its own. ${nothing}`, { field: 'text' });
  }
  if (caller !== undefined && caller.startedBySessionId !== null && !caller.mayCreateSessions) {
    throw nesting(
      `This session was started by another session's agent, and such a session cannot start sessions itself unless the user switches on "Agents in this conversation may start sessions" for it. ${nothing}`,
    );
  }

  const provider = resolveProvider(input.provider, caller, providers, relay.name);
  if (provider.id === IMAGE_PROVIDER) {
    throw unsupported(`An ${provider.name} chat cannot be started with create_session. ${nothing}`);
  }
  const { model, modelNote } = resolveModel(input.model, provider, caller, providers, relay.name);
  requireAvailable(provider, relay.name, 'create');

  const effort =
    input.effort !== '' ? checkEffort(provider, input.effort, 'create') : caller !== undefined && provider.efforts.includes(caller.effort) ? caller.effort : '';
  const mode = input.mode !== '' ? checkMode(input.mode, 'create') : (caller?.mode ?? 'agent');
  const place = resolvePlace(input, provider, caller, relay);
  const title = input.title.trim() !== '' ? checkTitle(input.title, 'create') : titleFromText(input.text);
  const placement = resolvePlacement(input.group, context);

  if (caller !== undefined && context.atWork >= MAX_SESSIONS_AT_WORK) {
    throw activeLimit(
      `This conversation already has ${context.atWork} sessions it started at work (a turn queued or running); at most ${MAX_SESSIONS_AT_WORK} may be, so a new one waits until one has finished. ${nothing}`,
      { limit: MAX_SESSIONS_AT_WORK, atWork: context.atWork },
    );
  }
  return {
    title,
    provider,
    model,
    effort,
    mode,
    ...place,
    placement,
    modelNote,
    firstStartedByCaller: caller !== undefined && context.startedCount === 0,
  };
}

function resolveProvider(asked: string, caller: Session | undefined, providers: readonly ProviderInfo[], relayName: string): ProviderInfo {
  if (asked !== '') {
    const provider = findProvider(providers, asked);
    if (provider === undefined) {
      throw invalidInput(
        `Unknown provider '${asked}' on relay "${relayName}". Providers there: ${providers.map((known) => known.id).join(', ')}. ${nothingDone('create')}`,
        { field: 'provider', providers: providers.map((known) => known.id) },
      );
    }
    return provider;
  }
  const callers = caller === undefined ? undefined : findProvider(providers, caller.provider);
  if (callers !== undefined && callers.available && callers.id !== IMAGE_PROVIDER) return callers;
  const fallback = findProvider(providers, DEFAULT_PROVIDER);
  if (fallback === undefined) throw new Error(`the catalogue has no '${DEFAULT_PROVIDER}' provider`);
  return fallback;
}

function resolveModel(
  asked: string,
  provider: ProviderInfo,
  caller: Session | undefined,
  providers: readonly ProviderInfo[],
  relayName: string,
): { model: string; modelNote: string } {
  if (asked !== '') return checkModel({ providers, provider, model: asked, relayName, action: 'create' });
  const callersModel =
    caller !== undefined && caller.provider === provider.id && caller.model !== '' && (provider.models.includes(caller.model) || !provider.modelsKnown);
  return { model: callersModel ? caller.model : provider.defaultModel, modelNote: '' };
}

function resolvePlace(
  input: CreateSessionInput,
  provider: ProviderInfo,
  caller: Session | undefined,
  relay: RelayPlace,
): { cwd: string; repo: string; branch: string } {
  const nothing = nothingDone('create');
  if (provider.id === CLOUD_PROVIDER) {
    if (input.cwd !== '') {
      throw invalidInput(`${provider.name} works on a repository, not a folder: give repo and branch instead of cwd. ${nothing}`, {
        field: 'cwd',
      });
    }
    if (input.repo === '') {
      throw invalidInput(`${provider.name} needs repo (owner/name) and branch to work on. ${nothing}`, { field: 'repo' });
    }
    if (!REPO_PATTERN.test(input.repo)) {
      throw invalidInput(`repo '${input.repo}' is not a repository as owner/name, e.g. example-org/sample-repo. ${nothing}`, {
        field: 'repo',
      });
    }
    return { cwd: '', repo: input.repo, branch: input.branch.trim() };
  }
  if (input.repo !== '' || input.branch !== '') {
    const field = input.repo !== '' ? 'repo' : 'branch';
    throw invalidInput(`${field} is for provider "${CLOUD_PROVIDER}" only; ${provider.name} works in a folder (cwd). ${nothing}`, { field });
  }
  if (input.cwd !== '') return { cwd: checkFolder(input.cwd, relay.allowedRoots), repo: '', branch: '' };
  const callersCwd = caller === undefined ? undefined : normaliseFolder(caller.cwd);
  const cwd = callersCwd !== undefined && isInsideAny(callersCwd, relay.allowedRoots) ? callersCwd : relay.defaultCwd;
  return { cwd, repo: '', branch: '' };
}

function resolvePlacement(group: string, context: CreateSessionContext): GroupPlacement {
  if (group.trim() !== '') {
    const found = findNamedGroup({ groups: context.groups, value: group, relayName: context.relay.name, action: 'create' });
    // findNamedGroup refuses an unknown group in create_session, so found is set.
    return found === undefined ? { kind: 'none' } : { kind: 'join', group: found };
  }
  const { caller } = context;
  if (caller === undefined) return { kind: 'none' };
  const callersGroup = caller.groupId === null ? undefined : context.groups.find((known) => known.id === caller.groupId);
  return callersGroup === undefined ? { kind: 'start' } : { kind: 'join', group: callersGroup };
}

/** A new group's id: recognisable as an id, so it is never taken for a name. */
export function newGroupId(ids: { newId(): string }): string {
  return `${GROUP_ID_PREFIX}${ids.newId().replace(/-/g, '').slice(0, 16)}`;
}
