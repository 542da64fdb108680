/** A session group and a session's place in it. */
import type { SessionState } from '../sessions/session.ts';

/** A session's place in its group. */
export type GroupRole = 'head' | 'member';

/** Who made a group: a user's group is never removed by agents; an agent's goes once it is empty. */
export type GroupMaker = 'user' | 'agent';

/** A session group of one user. */
export interface Group {
  id: string;
  userId: string;
  /** null = unnamed: it shows its head's title. */
  name: string | null;
  madeBy: GroupMaker;
  createdAt: Date;
  lastActivityAt: Date;
}

/** A group with what the API needs to show it. */
export interface GroupInfo extends Group {
  /** The head session's title, '' when it has no head. */
  headTitle: string;
  /** Sessions in it that are not deleted (archived ones count). */
  memberCount: number;
  /** Members that are not archived. */
  activeCount: number;
}

/** A session's group as list_sessions shows it. */
export interface GroupRef {
  id: string;
  /** What the sidebar shows: the name, or the head's title for a group nobody named. */
  name: string;
  role: GroupRole;
}

/** Another member of a group, as read_session lists it. */
export interface GroupMember {
  id: string;
  title: string;
  role: GroupRole;
  state: SessionState;
  archived: boolean;
}
