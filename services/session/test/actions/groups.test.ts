import { describe, expect, it } from 'vitest';
import { findNamedGroup, groupDisplayName, MAX_GROUPS_IN_ERROR } from '../../src/domain/groups/groups.ts';
import { aGroup, refusalOf } from './fixtures.ts';

const release = aGroup({ id: 'grp_rel', name: 'Release 2.4', memberCount: 3 });
const review = aGroup({ id: 'grp_rev', name: 'Review: server/', memberCount: 2 });
const unnamed = aGroup({ id: 'grp_un', name: null, headTitle: 'Nightly deploy' });
const groups = [release, review, unnamed];

describe('findNamedGroup', () => {
  it('finds a group by id, or by its shown name in any case', () => {
    expect(findNamedGroup({ groups, value: 'grp_rev', relayName: 'build-box', action: 'create' })).toBe(review);
    expect(findNamedGroup({ groups, value: ' release 2.4 ', relayName: 'build-box', action: 'create' })).toBe(release);
    expect(findNamedGroup({ groups, value: 'NIGHTLY DEPLOY', relayName: 'build-box', action: 'create' })).toBe(unnamed);
  });

  it("refuses an unknown name in create_session with the spec's sentence and the groups there", () => {
    const error = refusalOf(() => findNamedGroup({ groups, value: 'Relase', relayName: 'build-box', action: 'create' }));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_GROUP');
    expect(error.message).toBe(
      'Relay "build-box" has no session group "Relase". Groups there: Release 2.4 (grp_rel), Review: server/ (grp_rev), Nightly deploy (grp_un). No session was created.',
    );
    expect(error.details).toEqual({
      groups: [
        { id: 'grp_rel', name: 'Release 2.4', memberCount: 3 },
        { id: 'grp_rev', name: 'Review: server/', memberCount: 2 },
        { id: 'grp_un', name: 'Nightly deploy', memberCount: 1 },
      ],
      groupsTotal: 3,
    });
  });

  it('lists at most 20 groups and says how many there are', () => {
    const many = Array.from({ length: 25 }, (_, index) => aGroup({ id: `grp_${index}`, name: `G${index}` }));
    const error = refusalOf(() => findNamedGroup({ groups: many, value: 'nope', relayName: 'r', action: 'create' }));
    expect(error.details['groups']).toHaveLength(MAX_GROUPS_IN_ERROR);
    expect(error.details['groupsTotal']).toBe(25);
    expect(error.message).toContain(', and 5 more.');
  });

  it('refuses a name that fits two groups, with those groups, and asks for the id', () => {
    const twin = aGroup({ id: 'grp_twin', name: 'release 2.4' });
    const error = refusalOf(() => findNamedGroup({ groups: [...groups, twin], value: 'Release 2.4', relayName: 'build-box', action: 'update' }));
    expect(error.code).toBe('REMOTE_RELAY_UNKNOWN_GROUP');
    expect(error.message).toContain('Pass the id.');
    expect(error.details['groups']).toEqual([
      { id: 'grp_rel', name: 'Release 2.4', memberCount: 3 },
      { id: 'grp_twin', name: 'release 2.4', memberCount: 1 },
    ]);
  });

  it('in update_session, an unknown name means a new group but an unknown id is refused', () => {
    expect(findNamedGroup({ groups, value: 'Brand new', relayName: 'r', action: 'update' })).toBeUndefined();
    expect(refusalOf(() => findNamedGroup({ groups, value: 'grp_gone', relayName: 'r', action: 'update' })).code).toBe('REMOTE_RELAY_UNKNOWN_GROUP');
  });

  it("shows an unnamed group as its head's title", () => {
    expect(groupDisplayName(unnamed)).toBe('Nightly deploy');
  });
});
