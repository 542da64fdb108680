/** The fixed limits of relay_tool (decisions.md, Limits), in one place. */

/** Sessions one conversation started that may have a turn queued or running at once. */
export const MAX_ACTIVE_SESSIONS = 4;

/** The most arguments a result lists in `ignored`. */
export const IGNORED_LIMIT = 20;
