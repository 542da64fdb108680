/**
 * A session as agents and users see it, in list_sessions and the user API alike.
 */
import type { Session } from './ports.ts';

export interface SessionView {
  id: string;
  title: string;
  provider: string;
  model: string;
  state: Session['state'];
  cwd: string;
  lastActivityAt: string | null;
  messageCount: number;
  /** Background agents and shell tasks; none are tracked yet. */
  tasks: unknown[];
  archived?: true;
}

/** The JSON view of `session`; `archived` appears only on an archived one. */
export function sessionView(session: Session): SessionView {
  return {
    id: session.id,
    title: session.title,
    provider: session.provider,
    model: session.model,
    state: session.state,
    cwd: session.cwd,
    lastActivityAt: session.lastActivityAt?.toISOString() ?? null,
    messageCount: session.messageCount,
    tasks: [],
    ...(session.archived ? { archived: true as const } : {}),
  };
}
