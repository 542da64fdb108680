/**
 * update_session: changes another session's settings for its next turns, without prompting it, and
 * answers the settings it has now and what changed. At least one setting is needed. The session
 * service checks the whole call on a dry run first (model, effort, group, folder, busy, whether the
 * user must be asked); a call that would change nothing answers changed: [] and asks nobody. A
 * session the caller's conversation did not start needs the user's Allow on a card (which then
 * covers its later changes there), and in the ask and plan modes every change asks.
 */
import { UpdateSessionRequest, type SessionSettings, type UpdateSessionResponse } from '@relay/proto/relay/session/v1/session_service';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';
import { groupOf } from '../../../domain/answers.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { askPersonHere } from '../ask-person-here.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { updateSessionCard, type CardText, type SettingsChange } from '../../../domain/card-text.ts';
import { toolError } from '../../../domain/errors.ts';
import type { PairedCall } from '../../../domain/action-traits.ts';
import { requireNotOnItself } from '../../../domain/not-on-itself.ts';
import { success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId } from '../../views/turn-result.ts';

export const updateSession = defineAction({
  name: 'update_session',
  args: argumentsOf('relay', 'session', 'model', 'effort', 'mode', 'auto_compact_window', 'title', 'group', 'thinking_enabled', 'thinking_display', 'cwd'),
  relay: 'required',
  write: true,
  nothing: 'Nothing was changed.',
  refusesOthers: true,
  toPaired: {
    level: 'full',
    forwarded: true,
    features: [{ since: '0.9.16', refusal: 'Relay "{relay}" runs OAR {version}, which has no update_session (0.9.16). Nothing was changed.' }],
    asksAllow: true,
    card: pairedUpdateCard,
  },
  handler: runUpdateSession,
  fromPaired: serveUpdateSession,
});

/** The settings update_session takes, as the agent names them: every argument but the relay and the session. */
const SETTINGS = Object.keys(updateSession.args.shape).filter((name) => name !== 'relay' && name !== 'session');

async function runUpdateSession(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const change = settingsChange(args);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('update_session', args.session, caller);

  const conversation = await getConversation(sessions, caller.sessionId);
  const request = { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: args.session, ...change };
  const checked = await sessions.updateSession(UpdateSessionRequest.fromPartial({ ...request, allowed: false, dryRun: true }));
  if (checked.changed.length === 0) return result(relay, args.session, checked);

  if (needsCard({ mode: conversation.session.mode, writes: context.action.write, needsAllow: checked.needsAllow })) {
    const settings = answered(checked.settings, 'UpdateSession', 'settings');
    // A new title shows on its line; the card's heading names the session as it is known now.
    const title = change.title === undefined ? settings.title : `session ${shortId(args.session)}`;
    await askApproval(updateSessionCard(relay, title, change, groupOf(settings), checked.needsAllow), conversation, context);
  }
  const updated = await sessions.updateSession(UpdateSessionRequest.fromPartial({ ...request, allowed: checked.needsAllow, dryRun: false }));
  return result(relay, args.session, updated);
}

/** The settings the call names; REMOTE_RELAY_INVALID_INPUT when it names none. */
function settingsChange(args: ToolArguments): SettingsChange {
  const change: SettingsChange = {
    model: args.model,
    effort: args.effort,
    mode: args.mode,
    autoCompactWindow: args.auto_compact_window === undefined ? undefined : String(args.auto_compact_window),
    title: args.title,
    group: args.group,
    thinkingEnabled: args.thinking_enabled,
    thinkingDisplay: args.thinking_display,
    cwd: args.cwd,
  };
  const given = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) as SettingsChange;
  if (Object.keys(given).length === 0) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', `update_session needs at least one setting: ${SETTINGS.join(', ')}. Nothing was changed.`);
  }
  return given;
}

/**
 * update_session's card for a paired relay's session, as on this relay: it names the session and lists the change
 * (`Model: … · Effort: …`, `Group: …`), from the settings that relay's dry run says the session would have.
 */
function pairedUpdateCard({ args, checked, relay, grantsAllow }: PairedCall): CardText {
  const settings = (typeof checked.settings === 'object' && checked.settings !== null ? checked.settings : {}) as { title?: unknown; group?: unknown };
  const group = settings.group as { id?: unknown; name?: unknown; role?: unknown } | null | undefined;
  // A group the call would make has no id yet: the card says "a new group".
  const groupRef = group && typeof group.id === 'string' && group.id !== '' ? { id: group.id, name: String(group.name), role: String(group.role) } : undefined;
  const session = args.session ?? '';
  // A new title shows on its line; the heading names the session as it is known now.
  const title = args.title === undefined && typeof settings.title === 'string' ? settings.title : `session ${shortId(session)}`;
  return updateSessionCard(relay, title, settingsChange(args), groupRef, grantsAllow);
}

/** update_session's result: the settings the session has now and what changed. */
export function result(relay: string, sessionId: string, updated: UpdateSessionResponse) {
  const what = updated.changed.length === 0 ? 'nothing to change' : updated.changed.join(', ');
  return success(
    `update_session → ${relay} session ${shortId(sessionId)}: ${what}`,
    {
      session: sessionId,
      settings: settingsView(answered(updated.settings, 'UpdateSession', 'settings')),
      changed: updated.changed,
      ...(updated.relaunched === undefined ? {} : { relaunched: updated.relaunched }),
      ...(updated.groupCreated ? { groupCreated: { ...updated.groupCreated } } : {}),
      ...(updated.note ? { note: updated.note } : {}),
    },
    relay,
  );
}

/** The settings in the spec's words (snake_case, as update_session takes them). */
export function settingsView(settings: SessionSettings) {
  const group = groupOf(settings);
  return {
    model: settings.model,
    effort: settings.effort,
    mode: settings.mode,
    auto_compact_window: settings.autoCompactWindow,
    title: settings.title,
    group: group ? { id: group.id, name: group.name, role: group.role } : null,
    thinking_enabled: settings.thinkingEnabled,
    thinking_display: settings.thinkingDisplay,
    cwd: settings.cwd,
  };
}

/**
 * update_session from a paired relay: its conversation changes freely only a session this relay recorded it as
 * the starter of. Any other needs this relay's person's Allow, on a card this relay raises itself (askPersonHere):
 * a dry run answers needsAllow (with the settings the session would have) so the calling relay can ask its own user
 * first, as its rule says; the call itself waits here for this relay's person, whatever the calling relay decided.
 */
async function serveUpdateSession(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const change = settingsChange(args);
  const request = { userId: origin.userId, sessionId: args.session, ...change, remoteCaller: origin.provenance };
  const checked = await context.sessions.updateSession(UpdateSessionRequest.fromPartial({ ...request, allowed: false, dryRun: true }));
  if (checked.changed.length === 0) return result(context.relayName, args.session, checked);
  const settings = answered(checked.settings, 'UpdateSession', 'settings');
  if (checked.needsAllow && origin.dryRun) {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `Relay "${context.relayName}" did not record this conversation as the starter of session ${shortId(args.session)}: changing it needs the user's Allow there. Nothing was changed.`,
      { needsAllow: true, settings: settingsView(settings) },
    );
  }
  if (origin.dryRun) return { ...result(context.relayName, args.session, checked), dryRun: true };
  if (checked.needsAllow) {
    const title = change.title === undefined ? settings.title : `session ${shortId(args.session)}`;
    await askPersonHere(
      updateSessionCard(context.relayName, title, change, groupOf(settings), false),
      args.session,
      { action: 'update_session', args },
      origin,
      context,
    );
  }
  const updated = await context.sessions.updateSession(UpdateSessionRequest.fromPartial({ ...request, allowed: checked.needsAllow, dryRun: false }));
  return result(context.relayName, args.session, updated);
}
