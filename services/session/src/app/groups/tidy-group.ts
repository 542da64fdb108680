import type { ConversationStore } from '../ports.ts';

/**
 * Keeps a group whole after a session left it or was archived: a head that left hands over to the oldest
 * remaining member, and a group an agent made goes once no session in it is left unarchived. A group a user
 * made is never removed this way ("group · empty" stays theirs).
 */
export async function tidyGroup(
  store: Pick<ConversationStore, 'findGroup' | 'groupMembers' | 'updateSession' | 'deleteGroup'>,
  groupId: string,
  options: { headLeft: boolean },
): Promise<{ removed: boolean }> {
  const group = await store.findGroup(groupId);
  if (group === undefined) return { removed: false };
  const members = await store.groupMembers(groupId, Number.MAX_SAFE_INTEGER);
  if (group.madeBy === 'agent' && members.every((member) => member.archived)) {
    await store.deleteGroup(groupId);
    return { removed: true };
  }
  const heir = members.find((member) => !member.archived) ?? members[0];
  if (options.headLeft && heir !== undefined && !members.some((member) => member.role === 'head')) {
    await store.updateSession(heir.id, { groupRole: 'head' });
  }
  return { removed: false };
}
