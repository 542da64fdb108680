import { newGroupId } from '../../domain/sessions/plan-create-session.ts';
import type { GroupInfo, GroupRef } from '../../domain/groups/group.ts';
import type { Session } from '../../domain/sessions/session.ts';
import { invalidInput, notFound, permission } from '../../domain/errors.ts';
import { groupSummary, toGroupRef } from '../../domain/groups/groups.ts';
import { tidyGroup } from '../groups/tidy-group.ts';
import { realFolder } from './real-folder.ts';
import type { ActionDeps } from '../ports.ts';
import { planUpdateSession, UPDATE_OTHERS_GRANT, THIS_RELAY, type UpdateSessionInput, type UpdateSetting } from '../../domain/sessions/plan-update-session.ts';
import { nothingDone } from '../../domain/sessions/session-settings.ts';

/** A session's settings as update_session reports them. */
export interface SessionSettings {
  model: string;
  effort: string;
  mode: string;
  autoCompactWindow: string;
  title: string;
  group: GroupRef | null;
  thinkingEnabled: boolean;
  thinkingDisplay: string;
  cwd: string;
}

/** What update_session answers. */
export interface UpdateSessionResult {
  settings: SessionSettings;
  changed: UpdateSetting[];
  relaunched: boolean | undefined;
  groupCreated: { id: string; name: string; memberCount: number } | undefined;
  note: string;
  needsAllow: boolean;
}

/**
 * update_session: checks the whole call; on a dry run answers what would change and whether the user must
 * Allow it; otherwise (refusing with REMOTE_RELAY_PERMISSION when the Allow is needed and not given) writes
 * every change, the group move and the grant in one transaction.
 */
export async function updateSession(deps: ActionDeps, input: UpdateSessionInput, now: Date): Promise<UpdateSessionResult> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const providers = await deps.catalogue.providers();
  return deps.store.transaction(async (tx) => {
    const caller = input.callerSessionId === '' ? undefined : await tx.findSession(input.callerSessionId);
    if (input.callerSessionId !== '' && (caller === undefined || caller.userId !== input.userId)) {
      throw notFound(`No calling session '${input.callerSessionId}' on relay "${deps.relay.name}".`, { field: 'caller_session_id' });
    }
    const target = await tx.lockSession(input.sessionId);
    const [groups, openTurns, taskRunning, hasGrant, firstProvenance] = await Promise.all([
      tx.listGroups(input.userId),
      target === undefined ? [] : tx.openTurns(target.id),
      target === undefined ? false : tx.hasRunningTask(target.id),
      caller === undefined ? false : tx.hasGrant({ sessionId: caller.id, kind: UPDATE_OTHERS_GRANT, relay: THIS_RELAY }),
      target === undefined || input.remoteCaller === undefined ? null : tx.firstPromptProvenance(target.id),
    ]);
    // The folder as the machine resolves it: the roots check must see where a symbolic link leads.
    const resolved = input.cwd === undefined ? input : { ...input, cwd: await realFolder(deps.folders, input.cwd) };
    const plan = planUpdateSession(resolved, {
      target,
      caller,
      providers,
      groups,
      targetAtWork: openTurns.length > 0 ? 'turn' : taskRunning ? 'task' : false,
      hasGrant,
      remoteStarter:
        target !== undefined && target.startedBySessionId === null && firstProvenance !== null && firstProvenance.originRelay !== deps.relay.name
          ? { relay: firstProvenance.originRelay, sessionId: firstProvenance.originSessionId }
          : null,
      relayName: deps.relay.name,
      allowedRoots: deps.relay.allowedRoots,
    });
    const note = plan.notes.join(' ');
    const answer = (session: Session, group: GroupRef | null, groupCreated?: GroupInfo): UpdateSessionResult => ({
      settings: settingsOf(session, group),
      changed: plan.changed,
      relaunched: plan.relaunched,
      groupCreated: groupCreated === undefined ? undefined : groupSummary(groupCreated),
      note,
      needsAllow: plan.needsAllow,
    });

    if (input.dryRun || plan.changed.length === 0) {
      const [view] = await tx.viewSessions([plan.target]);
      const group =
        plan.groupMove === undefined
          ? view!.group
          : plan.groupMove.kind === 'join'
            ? toGroupRef(plan.groupMove.group, 'member')
            : plan.groupMove.kind === 'create'
              ? { id: '', name: plan.groupMove.name, role: 'head' as const }
              : null;
      return answer({ ...plan.target, ...plan.changes }, group);
    }
    if (plan.needsAllow) {
      throw permission(
        `Changing a session this conversation did not start needs the user's Allow first (asked once per conversation and relay). ${nothingDone('update')}`,
      );
    }
    if (plan.recordGrant && caller !== undefined) {
      await tx.insertGrant({ sessionId: caller.id, kind: UPDATE_OTHERS_GRANT, relay: THIS_RELAY, createdAt: now });
    }
    if (Object.keys(plan.changes).length > 0) await tx.updateSession(plan.target.id, plan.changes);

    let created: GroupInfo | undefined;
    const move = plan.groupMove;
    if (move !== undefined) {
      const oldGroupId = plan.target.groupId;
      const wasHead = plan.target.groupRole === 'head';
      if (move.kind === 'create') {
        const group = {
          id: newGroupId(deps.ids),
          userId: input.userId,
          name: move.name,
          madeBy: caller === undefined ? ('user' as const) : ('agent' as const),
          createdAt: now,
          lastActivityAt: now,
        };
        await tx.insertGroup(group);
        await tx.updateSession(plan.target.id, { groupId: group.id, groupRole: 'head' });
      } else if (move.kind === 'join') {
        await tx.updateSession(plan.target.id, { groupId: move.group.id, groupRole: 'member' });
      } else {
        await tx.updateSession(plan.target.id, { groupId: null, groupRole: null });
      }
      if (oldGroupId !== null) await tidyGroup(tx, oldGroupId, { headLeft: wasHead });
      if (move.kind === 'create') {
        const stored = await tx.findSession(plan.target.id);
        created = stored?.groupId == null ? undefined : await tx.findGroup(stored.groupId);
      }
    }
    const stored = await tx.findSession(plan.target.id);
    if (stored === undefined) throw new Error('the session just updated is missing');
    const [view] = await tx.viewSessions([stored]);
    return answer(stored, view!.group, created);
  });
}

function settingsOf(session: Session, group: GroupRef | null): SessionSettings {
  return {
    model: session.model,
    effort: session.effort,
    mode: session.mode,
    autoCompactWindow: session.autoCompactWindow,
    title: session.title,
    group,
    thinkingEnabled: session.thinkingEnabled,
    thinkingDisplay: session.thinkingDisplay,
    cwd: session.cwd,
  };
}
