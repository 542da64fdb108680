/**
 * GET /api/v1/events: the console's live updates, as Server-Sent Events. The gateway holds no data of its own
 * and is not on the bus, so it reads what the page shows through the same owners the user API reads (the
 * user's sessions, their Inbox, the one conversation open on the page) once a `pollMs` (a second), and sends an
 * `update` event with a digest of each part whenever one changes; the page then reads the parts that changed
 * through the user API. The browser's EventSource reconnects by itself (`retry`), after a gateway restart too.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { outsideTrace } from '@relay/telemetry';
import { bearerTokenOf } from '../authenticate-bearer.ts';
import { callerOf, type UserApiDeps } from '../user-api.ts';
import { invalidInput, Refusal, typed } from '../openapi.ts';
import { readConsoleUpdate } from '../../../app/console-update.ts';
import type { QuestionClient, SessionClient } from '../../../app/ports.ts';

export interface ConsoleEventsDeps extends UserApiDeps {
  sessions: SessionClient;
  questions: QuestionClient;
}

export interface ConsoleEventsOptions {
  /** How often the parts are read: 1000 ms. */
  pollMs?: number;
  /** Every how many reads the token is checked again (a revoked one ends the stream): 10. */
  recheckEvery?: number;
  /** How many streams one user may hold open (tabs); a new one past it ends their oldest: 20. */
  maxStreamsPerUser?: number;
}

const LiveUpdate = z
  .strictObject({
    sessions: z.string().describe("A digest of the user's sessions."),
    inbox: z.string().describe('A digest of their Inbox.'),
    inboxCount: z.number().int().describe('How many asks and cards wait in the Inbox.'),
    session: z.string().optional().describe('A digest of the conversation named by ?session= ("gone" once it is not theirs to read).'),
  })
  .meta({ id: 'LiveUpdate', description: 'What one `update` event carries: a digest per part the page shows, and the Inbox count.' });

const EVENTS = {
  querystring: z.object({ session: z.string({ error: 'session must be a session id' }).optional() }),
  response: {
    200: {
      description:
        'Server-Sent Events: `update` (a LiveUpdate, when a digest changed), `trouble` ({message}: an owner did not answer), `replaced` and `signed-out` ({message}: the stream ends; do not reconnect).',
      content: { 'text/event-stream': { schema: LiveUpdate } },
    },
    '4xx': Refusal,
    '5xx': Refusal,
  },
};

const HEARTBEAT_MS = 15_000;
const MAX_STREAMS_PER_USER = 20;
const replaced = (most: number) => ({
  event: 'replaced',
  message: `More than ${most} console pages of yours are open; this one stopped updating. Reload it to update it again.`,
});

/** Registers GET /api/v1/events on `app`; open streams end when the app closes. */
export function registerConsoleEvents(app: FastifyInstance, deps: ConsoleEventsDeps, options: ConsoleEventsOptions = {}): void {
  const pollMs = options.pollMs ?? 1000;
  const recheckEvery = options.recheckEvery ?? 10;
  const maxStreamsPerUser = options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER;
  // Each open stream's end, by user, oldest first: every stream costs the owners a few reads a second.
  const open = new Map<string, ((said?: { event: string; message: string }) => void)[]>();
  app.addHook('preClose', async () => {
    for (const ends of [...open.values()]) for (const end of [...ends]) end();
  });

  typed(app).get('/api/v1/events', { schema: EVENTS, attachValidation: true }, async (request, reply) => {
    const caller = await callerOf(deps, request, reply);
    if (caller === undefined || invalidInput(request, reply)) return reply;
    const sessionId = request.query.session || undefined;
    const token = bearerTokenOf(request) ?? '';
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    raw.write('retry: 1000\n\n');

    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    let sentAt = Date.now();
    let last = '';
    let reads = 0;
    // `said`: an event to send first, which tells the page not to reconnect.
    const end = (said?: { event: string; message: string }) => {
      if (ended) return;
      if (said !== undefined) raw.write(`event: ${said.event}\ndata: ${JSON.stringify({ message: said.message })}\n\n`);
      ended = true;
      clearTimeout(timer);
      const ends = (open.get(caller.userId) ?? []).filter((other) => other !== end);
      if (ends.length === 0) open.delete(caller.userId);
      else open.set(caller.userId, ends);
      raw.end();
    };
    const ends = [...(open.get(caller.userId) ?? []), end];
    open.set(caller.userId, ends);
    raw.once('close', () => end());

    const send = (event: string, data: unknown) => {
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      sentAt = Date.now();
    };
    if (ends.length > maxStreamsPerUser) ends[0]!(replaced(maxStreamsPerUser));

    const tick = async () => {
      if (ended) return;
      reads += 1;
      try {
        if (reads % recheckEvery === 0) {
          const again = await deps.sessions.authenticate({ token }).catch(() => undefined);
          if (again?.caller?.userId !== caller.userId) return end({ event: 'signed-out', message: 'This sign-in is no longer valid; sign in again.' });
        }
        const update = await readConsoleUpdate(deps, caller.userId, sessionId);
        const key = JSON.stringify(update);
        if (key !== last) {
          last = key;
          send('update', update satisfies z.output<typeof LiveUpdate>);
        } else if (Date.now() - sentAt >= HEARTBEAT_MS) {
          raw.write(': still here\n\n');
          sentAt = Date.now();
        }
      } catch (error) {
        deps.logger.warn({ err: error }, 'console events could not be read');
        send('trouble', { message: 'A service of this relay did not answer; the page updates again when it does.' });
        last = '';
      }
      if (!ended) timer = setTimeout(() => void tick(), pollMs);
    };
    // A stream is held for hours and reads once a second: its rounds stay out of the GET request's trace.
    outsideTrace(() => void tick());
  });
}
