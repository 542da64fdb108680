import { checkModel } from '../catalogue/check-model.ts';
import { CLAUDE_BILLINGS, EXTERNAL_PROVIDER, findProvider, type ProviderInfo } from '../catalogue/provider-catalogue.ts';
import type { Provenance } from './conversation.ts';
import type { Session, SessionChanges } from './session.ts';
import { activeLimit, archived, forbidden, invalidInput, notFound, providerUnavailable, unsupported } from '../errors.ts';
import { MAX_SESSIONS_AT_WORK } from '@relay/errors';
import { checkEffort, checkMode, nothingDone, requireAvailable } from './session-settings.ts';

/** A send as the gateway passes it (or a user's message when callerSessionId is ''); '' means "not given". */
export interface SendMessageInput {
  userId: string;
  callerSessionId: string;
  sessionId: string;
  text: string;
  /** 'claude' or 'claude-api': switches a Claude session's billing with this message. */
  provider: string;
  model: string;
  effort: string;
  /** The mode the turn runs in; '' passes the caller's own. */
  mode: string;
  provenance: Provenance | null;
  /** Paired relays a user's message mentions (the gateway knows them): they are unlocked in the conversation. */
  mentionedRelays?: string[];
  dryRun: boolean;
}

/** What the rules of send read. */
export interface SendMessageContext {
  target: Session | undefined;
  caller: Session | undefined;
  providers: readonly ProviderInfo[];
  /** Sessions the caller started that are at work now. */
  callerAtWork: number;
  /** The target has a turn that is not over. */
  targetAtWork: boolean;
  relayName: string;
}

/** What a send changes on the session and reports. */
export interface SendMessagePlan {
  target: Session;
  /** Settings the message carries onto the session (provider, model, effort, mode); only those that differ. */
  changes: SessionChanges;
  mode: Session['mode'];
  modelNote: string;
  /** 'API key' or 'subscription' when the call switches billing; '' otherwise. */
  billingSwitch: string;
}

/**
 * The rules of send, pure: never the caller's own conversation, not an archived or external session, the
 * model checked before availability, Claude's billing switched only between claude and claude-api, and the
 * mode named (or the caller's) staying on the session for its next turns.
 */
export function planSendMessage(input: SendMessageInput, context: SendMessageContext): SendMessagePlan {
  const { target, caller, providers, relayName } = context;
  const nothing = nothingDone('send');
  if (target === undefined || target.userId !== input.userId) {
    throw notFound(`No session '${input.sessionId}' on relay "${relayName}". ${nothing}`, { field: 'session' });
  }
  if (caller !== undefined && target.id === caller.id) {
    throw forbidden(`An agent cannot send to the conversation it runs in. ${nothing}`);
  }
  if (target.archived) throw archived(`Session "${target.title}" is archived. ${nothing}`);
  if (target.provider === EXTERNAL_PROVIDER) {
    throw unsupported(`Session "${target.title}" is an external session: an external session's agent runs outside this relay. ${nothing}`);
  }
  if (input.text.trim() === '') throw invalidInput(`text is required. ${nothing}`, { field: 'text' });

  const switching = input.provider !== '' && input.provider !== target.provider;
  if (switching && !(Object.hasOwn(CLAUDE_BILLINGS, target.provider) && Object.hasOwn(CLAUDE_BILLINGS, input.provider))) {
    throw invalidInput(
      `provider on send only switches a Claude session between "claude" (subscription) and "claude-api" (API key); session "${target.title}" runs on ${target.provider}. ${nothing}`,
      { field: 'provider' },
    );
  }
  const providerId = switching ? input.provider : target.provider;
  const provider = findProvider(providers, providerId);
  if (provider === undefined) {
    throw providerUnavailable(`Provider '${providerId}' is not set up on relay "${relayName}". ${nothing}`, { provider: providerId });
  }

  const { model, modelNote } =
    input.model !== ''
      ? checkModel({ providers, provider, model: input.model, relayName, action: 'send' })
      : switching
        ? checkModel({ providers, provider, model: target.model, relayName, action: 'send' })
        : { model: target.model, modelNote: '' };
  requireAvailable(provider, relayName, 'send');
  const effort = input.effort !== '' ? checkEffort(provider, input.effort, 'send') : target.effort;
  const mode = input.mode !== '' ? checkMode(input.mode, 'send') : (caller?.mode ?? target.mode);

  if (caller !== undefined && target.startedBySessionId === caller.id && !context.targetAtWork && context.callerAtWork >= MAX_SESSIONS_AT_WORK) {
    throw activeLimit(
      `This conversation already has ${context.callerAtWork} sessions it started at work (a turn queued or running); at most ${MAX_SESSIONS_AT_WORK} may be, so this one waits until one has finished. ${nothing}`,
      { limit: MAX_SESSIONS_AT_WORK, atWork: context.callerAtWork },
    );
  }

  const wanted: SessionChanges = { provider: provider.id, model, effort, mode };
  const changes = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => target[key as keyof Session] !== value)) as SessionChanges;
  return { target, changes, mode, modelNote, billingSwitch: switching ? (CLAUDE_BILLINGS[provider.id] ?? '') : '' };
}
