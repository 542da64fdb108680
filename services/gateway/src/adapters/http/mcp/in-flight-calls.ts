/**
 * The tools/call requests this gateway process is answering, so a `notifications/cancelled` can
 * reach one. Without MCP sessions each POST gets its own server, and the SDK's own cancellation only
 * knows the requests of its server; a client whose tool timeout ran out cancels with a new POST.
 * Best effort: the cancellation must land on the replica that answers the call. A client that
 * goes away ends its call on any replica (the request's own signal).
 */
export class InFlightCalls {
  private readonly calls = new Map<string, Set<AbortController>>();

  /** Tracks a call of `sessionId`'s agent; the returned function forgets it. */
  register(sessionId: string, requestId: string | number, controller: AbortController): () => void {
    const key = keyOf(sessionId, requestId);
    const set = this.calls.get(key) ?? new Set<AbortController>();
    set.add(controller);
    this.calls.set(key, set);
    return () => {
      set.delete(controller);
      if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
    };
  }

  /** Aborts `sessionId`'s agent's call `requestId`, if this process answers it; another agent's calls are out of reach. */
  cancel(sessionId: string, requestId: string | number): void {
    for (const controller of this.calls.get(keyOf(sessionId, requestId)) ?? []) controller.abort();
  }
}

function keyOf(sessionId: string, requestId: string | number): string {
  return `${sessionId}\u0000${typeof requestId}:${requestId}`;
}
