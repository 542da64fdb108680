/**
 * A listing capped at `limit` that says when more match: its store is asked for `limit + 1` rows, and `rows` holds
 * what it answered; the first `limit` are listed, and the one more, when it came, only tells that there is more.
 */
export function capped<T>(rows: readonly T[], limit: number): { listed: T[]; more: boolean } {
  return { listed: rows.slice(0, limit), more: rows.length > limit };
}
