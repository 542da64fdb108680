/**
 * Fair shares of the gateway's work between users, and between one user's sessions (docs/relay-tool.md, Fair
 * shares). At most `perUser` calls of one user are at work at once while no other user is present, `perUserShared`
 * while another is, and at most `total` of all users; a call beyond waits in line, up to `queuedPerUser` of one user,
 * and a call past that is refused at once. A user is present while they have a call at work or waiting, or one of the
 * last `RECENT_CALLS` calls let in was theirs: a user calling one call after another stays present between them. A
 * freed place goes to the next user in turn (round robin over the users with calls waiting and below their share),
 * and within that user to the next of their lanes (sessions) in turn: one user's burst, or one session's, waits
 * behind itself, and keeps only `perUserShared` calls at work beside another user's. Nothing is timed here; a call
 * whose caller goes away while it waits leaves the line at once.
 */

export interface FairShareBounds {
  /** Calls of one user at work at once while no other user is present. */
  perUser: number;
  /** Calls of one user at work at once while another user is present (at most `perUser`). */
  perUserShared: number;
  /** Calls of one user waiting for a place; one more is refused. */
  queuedPerUser: number;
  /** Calls of all users at work at once. */
  total: number;
}

/** Gives a call's place back; once is enough, again does nothing. */
export type Release = () => void;

/** A call let in: `turn` answers its Release once it may work, or undefined when its caller went away first. */
export type Entry = { refused: true } | { refused: false; turn: Promise<Release | undefined> };

interface Waiter {
  admit(release: Release): void;
}

/** One user's calls: at work, and waiting by lane in the order the lanes take turns. */
interface UserLine {
  working: number;
  waiting: number;
  lanes: Map<string, Waiter[]>;
}

/** How many of the latest calls let in tell which users are present beside those with calls at work or waiting. */
export const RECENT_CALLS = 200;

export class FairShares {
  readonly #users = new Map<string, UserLine>();
  /** The users with calls waiting, in the order they take turns. */
  readonly #turns = new Set<string>();
  /** The users of the last RECENT_CALLS calls let in (a ring, `#nextRecent` the oldest), and how many of those each has. */
  readonly #recent: string[] = [];
  #nextRecent = 0;
  readonly #recentCounts = new Map<string, number>();
  #working = 0;

  constructor(readonly bounds: FairShareBounds) {}

  /**
   * Lets a call of `user` in `lane` in: at once when it has a place, else in line; refused when the user already has
   * `perUser + queuedPerUser` calls at work or waiting. Aborting `signal` takes a waiting call out of the line.
   */
  enter(user: string, lane: string, signal?: AbortSignal): Entry {
    const line = this.#users.get(user) ?? { working: 0, waiting: 0, lanes: new Map<string, Waiter[]>() };
    if (line.working + line.waiting >= this.bounds.perUser + this.bounds.queuedPerUser) return { refused: true };
    this.#users.set(user, line);
    if (signal?.aborted === true) {
      this.#forgetIfIdle(user, line);
      return { refused: false, turn: Promise.resolve(undefined) };
    }
    if (line.waiting === 0 && line.working < this.#shareOf(user) && this.#working < this.bounds.total) {
      const release = this.#start(user, line);
      // A user who came back after the others' calls pushed them out of the recent ones may free others' shares.
      this.#admitNext();
      return { refused: false, turn: Promise.resolve(release) };
    }
    return { refused: false, turn: this.#wait(user, line, lane, signal) };
  }

  /** What `user` has at work and waiting (nothing: the user is not held at all). */
  loadOf(user: string): { working: number; waiting: number } {
    const line = this.#users.get(user);
    return { working: line?.working ?? 0, waiting: line?.waiting ?? 0 };
  }

  /** How many users have calls at work or waiting. */
  get users(): number {
    return this.#users.size;
  }

  #wait(user: string, line: UserLine, lane: string, signal: AbortSignal | undefined): Promise<Release | undefined> {
    return new Promise((resolve) => {
      const onAbort = () => {
        const waiters = line.lanes.get(lane) ?? [];
        waiters.splice(waiters.indexOf(waiter), 1);
        if (waiters.length === 0) line.lanes.delete(lane);
        line.waiting -= 1;
        if (line.waiting === 0) this.#turns.delete(user);
        this.#forgetIfIdle(user, line);
        // A user gone from the line may leave the others more of the gateway.
        this.#admitNext();
        resolve(undefined);
      };
      const waiter: Waiter = {
        admit: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiters = line.lanes.get(lane);
      if (waiters === undefined) line.lanes.set(lane, [waiter]);
      else waiters.push(waiter);
      line.waiting += 1;
      this.#turns.add(user);
    });
  }

  #start(user: string, line: UserLine): Release {
    line.working += 1;
    this.#working += 1;
    this.#remember(user);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      line.working -= 1;
      this.#working -= 1;
      this.#forgetIfIdle(user, line);
      this.#admitNext();
    };
  }

  /** Gives free places to the waiting calls: users in turn, and each user's lanes in turn. */
  #admitNext(): void {
    while (this.#working < this.bounds.total) {
      const user = [...this.#turns].find((waiting) => this.#users.get(waiting)!.working < this.#shareOf(waiting));
      if (user === undefined) return;
      const line = this.#users.get(user)!;
      const [lane, waiters] = line.lanes.entries().next().value as [string, Waiter[]];
      const waiter = waiters.shift()!;
      // The lane, and the user if more of theirs wait, go to the back of the turns.
      line.lanes.delete(lane);
      if (waiters.length > 0) line.lanes.set(lane, waiters);
      line.waiting -= 1;
      this.#turns.delete(user);
      if (line.waiting > 0) this.#turns.add(user);
      waiter.admit(this.#start(user, line));
    }
  }

  /** How many calls of `user` may be at work at once now: fewer while another user is present. */
  #shareOf(user: string): number {
    return this.#othersPresent(user) ? Math.min(this.bounds.perUserShared, this.bounds.perUser) : this.bounds.perUser;
  }

  /** Whether a user other than `user` has a call at work or waiting, or one among the recent calls let in. */
  #othersPresent(user: string): boolean {
    for (const present of this.#users.keys()) if (present !== user) return true;
    for (const present of this.#recentCounts.keys()) if (present !== user) return true;
    return false;
  }

  #remember(user: string): void {
    this.#recentCounts.set(user, (this.#recentCounts.get(user) ?? 0) + 1);
    if (this.#recent.length < RECENT_CALLS) {
      this.#recent.push(user);
      return;
    }
    const oldest = this.#recent[this.#nextRecent]!;
    this.#recent[this.#nextRecent] = user;
    this.#nextRecent = (this.#nextRecent + 1) % RECENT_CALLS;
    const left = this.#recentCounts.get(oldest)! - 1;
    if (left === 0) this.#recentCounts.delete(oldest);
    else this.#recentCounts.set(oldest, left);
  }

  #forgetIfIdle(user: string, line: UserLine): void {
    if (line.working === 0 && line.waiting === 0) this.#users.delete(user);
  }
}
