/**
 * The spec's fixed limits that more than one service speaks of (decisions.md, Limits): the service that enforces one
 * refuses with its code, another reports it.
 */

/**
 * Sessions one conversation's agent started that may be at work (a turn queued or running) at once: the session
 * service refuses one more with REMOTE_RELAY_ACTIVE_LIMIT, relay_info reports it as limits.maxActiveSessions.
 */
export const MAX_SESSIONS_AT_WORK = 4;
