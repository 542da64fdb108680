import { RELAY_MODES } from '../../domain/sessions/session.ts';
import { groupSummary, MAX_GROUPS_IN_INFO } from '../../domain/groups/groups.ts';
import type { ActionDeps, PendingAlong, SessionReads } from '../ports.ts';
import type { ProviderInfo } from '../../domain/catalogue/provider-catalogue.ts';
import { invalidInput } from '../../domain/errors.ts';

/** Recent folders relay_info lists. */
export const MAX_RECENT_CWDS = 10;

/** What relay_info shows about this relay for a user. */
export interface RelayInfo extends PendingAlong {
  providers: ProviderInfo[];
  defaultCwd: string;
  recentCwds: string[];
  modes: string[];
  /** Groups with at least one session, latest activity first, at most 50. */
  groups: { id: string; name: string; memberCount: number }[];
  groupsTotal: number;
}

/**
 * relay_info: providers with their models and efforts, folders, modes and the user's groups; with the pending note
 * of `pendingFor` (PendingAlong).
 */
export async function getRelayInfo(
  deps: Pick<ActionDeps, 'catalogue' | 'relay'> & { reads: Pick<SessionReads, 'relayInfo'> },
  input: { userId: string; pendingFor?: string },
): Promise<RelayInfo> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const [providers, { recentCwds, groups, pending }] = await Promise.all([
    deps.catalogue.providers(),
    deps.reads.relayInfo(input.userId, MAX_RECENT_CWDS, input.pendingFor),
  ]);
  const listed = groups.filter((group) => group.memberCount > 0);
  return {
    providers,
    defaultCwd: deps.relay.defaultCwd,
    recentCwds,
    modes: [...RELAY_MODES],
    groups: listed.slice(0, MAX_GROUPS_IN_INFO).map(groupSummary),
    groupsTotal: listed.length,
    pending,
  };
}
