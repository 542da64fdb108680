/** The fixed limits of relay_tool (decisions.md, Limits), in one place. */

/** The most arguments a result lists in `ignored`. */
export const IGNORED_LIMIT = 20;

/** The most session groups relay_info lists. */
export const GROUPS_LIMIT = 50;

/** The most other group members read_session lists. */
export const GROUP_MEMBERS_LIMIT = 50;

/** read_session's `last`: the default and the most. */
export const READ_LAST_DEFAULT = 10;
export const READ_LAST_MAX = 100;

/**
 * list_sessions through relay_tool and GET /api/v1/sessions: the most sessions a page lists (the most recently active
 * first; `page` reads the rest), and the highest page they take.
 */
export const LIST_SESSIONS_PAGE = 100;
export const LIST_SESSIONS_PAGES_MAX = 100_000;

/** How many pages of `pageSize` a listing of `total` sessions fills: 1 when it holds none. */
export function sessionPages(total: number, pageSize = LIST_SESSIONS_PAGE): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
