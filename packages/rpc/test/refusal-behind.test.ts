// A refusal a library threw in its own error (Prisma's client wraps what its driver adapter's pool throws, keeping
// the code) is answered by serveUnary as the refusal, not as an internal fault; a plain error stays internal.
import { status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { createLogger } from '@relay/telemetry';
import { expect, it } from 'vitest';
import { CODE_METADATA_KEY, serveUnary } from '../src/index.ts';

const logger = createLogger({ name: 'refusal-behind-test', level: 'silent' });

/** Prisma's error for a query its pool refused: its own class and text, the refusal's code and last line. */
class WrappedByALibrary extends Error {
  readonly code = 'REMOTE_RELAY_CALL_LIMIT';
}

/** What `thrown` is answered with by a served handler that throws it. */
async function answerFor(thrown: Error): Promise<{ code: status; relayCode: unknown; details: string | undefined }> {
  const served = serveUnary<{ createUser: () => Promise<never> }>(logger, {
    createUser: async () => {
      throw thrown;
    },
  });
  const call = { request: {}, getPath: () => '/relay.session.v1.SessionService/CreateUser', getDeadline: () => Infinity };
  return new Promise((resolve) => {
    const callback: sendUnaryData<unknown> = (error) =>
      resolve({ code: error!.code!, relayCode: error!.metadata!.get(CODE_METADATA_KEY)[0], details: error!.details });
    (served.createUser as (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void)(call as never, callback);
  });
}

it('answers the refusal a library passed on under its own error, with its code and its message', async () => {
  const wrapped = new WrappedByALibrary('\nInvalid `prisma.card.findMany()` invocation:\n\nThis relay has too many calls waiting. Nothing was changed.');
  expect(await answerFor(wrapped)).toEqual({
    code: status.RESOURCE_EXHAUSTED,
    relayCode: 'REMOTE_RELAY_CALL_LIMIT',
    details: 'This relay has too many calls waiting. Nothing was changed.',
  });
});

it('answers any other error as internal, its message hidden', async () => {
  const fault = Object.assign(new Error('connection reset\nat socket'), { code: 'ECONNRESET' });
  expect(await answerFor(fault)).toEqual({ code: status.INTERNAL, relayCode: 'REMOTE_RELAY_INTERNAL', details: 'internal error' });
});
