import type { Group } from '../../domain/groups/group.ts';
import { NEW_SESSION_SETTINGS, type Session, type SessionView } from '../../domain/sessions/session.ts';
import { invalidInput, notFound } from '../../domain/errors.ts';
import { realFolder } from './real-folder.ts';
import { toGroupRef } from '../../domain/groups/groups.ts';
import type { ActionDeps } from '../ports.ts';
import { newGroupId, planCreateSession, type CreateSessionInput } from '../../domain/sessions/plan-create-session.ts';
import { agentProvenance, buildQueuedMessage, promptOf } from '../../domain/sessions/queue-message.ts';

/** The session as created (or as it would be: id '' on a dry run), and what the result reports. */
export interface CreateSessionResult {
  session: SessionView;
  /** The queued first prompt; '' on a dry run. */
  messageId: string;
  modelNote: string;
  groupWarning: string;
  firstStartedByCaller: boolean;
}

/**
 * create_session: checks the whole call, then (unless dry_run) in one transaction starts the session, puts
 * it into its group, queues its first prompt and records session_created and turn_queued.
 */
export async function createSession(deps: ActionDeps, input: CreateSessionInput, now: Date): Promise<CreateSessionResult> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const providers = await deps.catalogue.providers();
  return deps.store.transaction(async (tx) => {
    const caller = input.callerSessionId === '' ? undefined : await tx.lockSession(input.callerSessionId);
    if (input.callerSessionId !== '' && (caller === undefined || caller.userId !== input.userId)) {
      throw notFound(`No calling session '${input.callerSessionId}' on relay "${deps.relay.name}".`, { field: 'caller_session_id' });
    }
    const [groups, atWork, startedCount] = await Promise.all([
      tx.listGroups(input.userId),
      caller === undefined ? 0 : tx.countSessionsAtWork(caller.id),
      caller === undefined ? 0 : tx.countStartedSessions(caller.id),
    ]);
    // The folder as the machine resolves it: the roots check must see where a symbolic link leads.
    const cwd = input.cwd === '' ? '' : await realFolder(deps.folders, input.cwd);
    const plan = planCreateSession({ ...input, cwd }, { caller, providers, groups, atWork, startedCount, relay: deps.relay });

    const session: Session = {
      ...NEW_SESSION_SETTINGS,
      id: input.dryRun ? '' : deps.ids.newId(),
      userId: input.userId,
      title: plan.title,
      provider: plan.provider.id,
      model: plan.model,
      origin: 'hosted',
      state: 'running_turn',
      cwd: plan.cwd,
      archived: false,
      messageCount: 0,
      createdAt: now,
      lastActivityAt: now,
      effort: plan.effort,
      mode: plan.mode,
      repo: plan.repo,
      branch: plan.branch,
      startedBySessionId: caller?.id ?? null,
    };
    const result = { modelNote: plan.modelNote, groupWarning: '', firstStartedByCaller: plan.firstStartedByCaller };

    if (input.dryRun) {
      const group =
        plan.placement.kind === 'join'
          ? toGroupRef(plan.placement.group, 'member')
          : plan.placement.kind === 'start' && caller !== undefined
            ? { id: '', name: caller.title, role: 'member' as const }
            : null;
      return { ...result, session: { ...session, group, startedByTitle: caller?.title ?? '' }, messageId: '' };
    }

    if (plan.placement.kind === 'join') {
      session.groupId = plan.placement.group.id;
      session.groupRole = 'member';
    } else if (plan.placement.kind === 'start' && caller !== undefined) {
      const group: Group = { id: newGroupId(deps.ids), userId: input.userId, name: null, madeBy: 'agent', createdAt: now, lastActivityAt: now };
      await tx.insertGroup(group);
      await tx.updateSession(caller.id, { groupId: group.id, groupRole: 'head' });
      session.groupId = group.id;
      session.groupRole = 'member';
    }
    await tx.insertSession(session);
    const [created] = await tx.viewSessions([session]);
    await tx.recordEvent({ type: 'session_created', eventId: deps.ids.newId(), occurredAt: now, session: created! });

    const provenance = input.provenance ?? (caller === undefined ? null : agentProvenance(caller, await tx.openTurns(caller.id), deps.relay.name));
    const prompt = promptOf({ text: input.text, provenance, mentioned: input.mentionedRelays ?? [] }, caller !== undefined, deps.relay.name);
    const queued = buildQueuedMessage(
      deps.ids,
      session,
      {
        text: prompt.text,
        role: prompt.role,
        provenance,
        senderSessionId: caller?.id ?? null,
        mode: plan.mode,
      },
      now,
    );
    await tx.queueMessage(queued);
    if (prompt.unlocks.length > 0) await tx.unlockRelays(session.id, prompt.unlocks, now);
    const stored = await tx.findSession(session.id);
    if (stored === undefined) throw new Error('the session just created is missing');
    const [view] = await tx.viewSessions([stored]);
    return { ...result, session: view!, messageId: queued.message.id };
  });
}
