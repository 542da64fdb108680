// What Prisma's client throws for a query its pool refused (@relay/db's lines, too late for its call's deadline) is
// still the refusal: refusalBehind finds its code and message, so the service answers REMOTE_RELAY_CALL_LIMIT and
// not REMOTE_RELAY_INTERNAL. The client and its adapter are the service's own; the pool refuses before connecting.
import { PrismaPg } from '@prisma/adapter-pg';
import { appError, isAppError, refusalBehind } from '@relay/errors';
import pg from 'pg';
import { expect, it } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';

const REFUSAL = appError('REMOTE_RELAY_CALL_LIMIT', 'This relay has too many calls waiting for its database. Nothing was changed.');

/** A pool whose every statement run alone is refused, as the laned pool refuses one whose call's deadline nears. */
class RefusingPool extends pg.Pool {
  constructor() {
    super({ connectionString: 'postgresql://nobody@127.0.0.1:1/none' });
    this.query = (() => Promise.reject(REFUSAL)) as unknown as pg.Pool['query'];
  }
}

it("finds the pool's refusal behind the error Prisma's client throws for it", async () => {
  const prisma = new PrismaClient({ adapter: new PrismaPg(new RefusingPool()) });
  const thrown = await prisma.card.findMany({ take: 1 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(isAppError(thrown)).toBe(false);
  expect(refusalBehind(thrown)).toMatchObject({ code: 'REMOTE_RELAY_CALL_LIMIT', kind: 'resource_exhausted', message: REFUSAL.message });
});
