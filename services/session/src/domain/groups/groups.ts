import type { GroupInfo, GroupRef, GroupRole } from './group.ts';
import { unknownGroup } from '../errors.ts';

/** Group ids start with this, so a value that looks like an id is never taken as a new group's name. */
export const GROUP_ID_PREFIX = 'grp_';
/** Groups relay_info lists; members read_session lists; groups an unknown-group refusal lists (decisions.md, Limits). */
export const MAX_GROUPS_IN_INFO = 50;
export const MAX_GROUP_MEMBERS = 50;
export const MAX_GROUPS_IN_ERROR = 20;

/** What the sidebar shows for a group: its name, or its head's title when nobody named it. */
export function groupDisplayName(group: Pick<GroupInfo, 'name' | 'headTitle'>): string {
  return group.name ?? group.headTitle;
}

/** A session's group as list_sessions shows it. */
export function toGroupRef(group: Pick<GroupInfo, 'id' | 'name' | 'headTitle'>, role: GroupRole): GroupRef {
  return { id: group.id, name: groupDisplayName(group), role };
}

/**
 * Finds the group an agent named, by id or by its shown name in any case ("Putting it into a group").
 * Refuses an unknown id, an unknown name in create_session, and a name that fits several groups, listing the
 * groups there. In update_session an unknown name is not an error: it returns undefined and a group is made.
 */
export function findNamedGroup(input: { groups: readonly GroupInfo[]; value: string; relayName: string; action: 'create' | 'update' }): GroupInfo | undefined {
  const { groups, relayName, action } = input;
  const value = input.value.trim();
  const byId = groups.find((group) => group.id === value);
  if (byId !== undefined) return byId;
  const named = groups.filter((group) => groupDisplayName(group).toLowerCase() === value.toLowerCase());
  const nothing = action === 'create' ? 'No session was created.' : 'Nothing was changed.';
  if (named.length > 1) {
    throw unknownGroup(`Relay "${relayName}" has ${named.length} session groups named "${value}": ${listGroups(named)}. Pass the id. ${nothing}`, {
      groups: named.slice(0, MAX_GROUPS_IN_ERROR).map(groupSummary),
      groupsTotal: named.length,
    });
  }
  if (named.length === 1) return named[0];
  if (action === 'update' && !value.startsWith(GROUP_ID_PREFIX)) return undefined;
  const shown = groups.slice(0, MAX_GROUPS_IN_ERROR);
  const more = groups.length > shown.length ? `, and ${groups.length - shown.length} more` : '';
  throw unknownGroup(
    `Relay "${relayName}" has no session group "${value}". Groups there: ${shown.length === 0 ? 'none' : listGroups(shown) + more}. ${nothing}`,
    { groups: shown.map(groupSummary), groupsTotal: groups.length },
  );
}

/** A group as relay_info and refusals list it. */
export function groupSummary(group: Pick<GroupInfo, 'id' | 'name' | 'headTitle' | 'memberCount'>): { id: string; name: string; memberCount: number } {
  return { id: group.id, name: groupDisplayName(group), memberCount: group.memberCount };
}

function listGroups(groups: readonly GroupInfo[]): string {
  return groups.map((group) => `${groupDisplayName(group)} (${group.id})`).join(', ');
}
