// createClient answers a unary call as soon as its response arrives, without waiting for the status that follows it,
// against a real grpc-js server whose statuses after a response are held until the test lets them go.
import {
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  status,
  makeGenericClientConstructor,
  type sendUnaryData,
  type ServerInterceptor,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary, createClient, type ClientConstructor } from '../src/index.ts';
import { tokenAuth } from './fixtures/credentials.ts';

const identity = (bytes: Buffer) => bytes;
const ECHO: ServiceDefinition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'echo',
  },
};
type EchoClient = InstanceType<ReturnType<typeof makeGenericClientConstructor>>;

/** The statuses the server holds back: each sent after a response, let go by calling it. */
const held: (() => void)[] = [];

const holdStatusAfterResponse: ServerInterceptor = (_method, call) => {
  let responded = false;
  return new ServerInterceptingCall(call, {
    sendMessage: (message, next) => {
      responded = true;
      next(message);
    },
    sendStatus: (sent, next) => {
      if (responded) held.push(() => next(sent));
      else next(sent);
    },
  });
};

/** Echoes its request; one that says "refuse" is refused without a response. */
function echo(call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>): void {
  if (call.request.toString() === 'refuse') done({ code: status.PERMISSION_DENIED, details: 'refused' });
  else done(null, call.request);
}

describe('a unary call through createClient', () => {
  const server = new Server({ interceptors: [holdStatusAfterResponse] });
  let client: EchoClient;

  beforeAll(async () => {
    server.addService(ECHO, { echo });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    const Client = makeGenericClientConstructor(ECHO, 'Echo') as unknown as ClientConstructor<EchoClient>;
    client = createClient(Client, `127.0.0.1:${port}`, tokenAuth('gateway'));
  });

  afterAll(() => {
    for (const release of held.splice(0)) release();
    client.close();
    server.forceShutdown();
  });

  it('is answered with its response while the status that follows it is still on its way', async () => {
    // Waiting for the status would end the call only at its deadline.
    await expect(callUnary(client, 'echo', Buffer.from('hello'), { deadlineMs: 10_000 })).resolves.toEqual(Buffer.from('hello'));
    expect(held).toHaveLength(1);
    held.splice(0).forEach((release) => release());
  });

  it('is refused as before when the status comes without a response', async () => {
    await expect(callUnary(client, 'echo', Buffer.from('refuse'), { deadlineMs: 10_000 })).rejects.toMatchObject({ kind: 'permission_denied' });
    expect(held).toHaveLength(0);
  });
});
