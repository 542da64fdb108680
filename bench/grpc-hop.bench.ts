// Benchmark of one gRPC hop between two relay processes (prints figures; it is not a test). From the root:
//   npx tsx bench/grpc-hop.bench.ts
//
// A relay read passes one hop from the gateway to the session service; this bench measures that hop alone, with
// nothing behind it: the relay's own gRPC server (@relay/rpc's startGrpcServer: its caller check and token
// authentication) in a child process, and the relay's own client (createClient) in this one, sending 100 bytes a
// call. It measures two clients in turn, each first in every other round: the relay's, whose channels take a 1 MiB
// HTTP/2 flow-control window, and the same with HTTP/2's default of 64 KiB, where the server may have no more than
// 64 KiB of answers on their way at once and the client gives it more, in a frame of its own, every 32 KiB it reads.
// The answers are of 3.5 KB (a list_sessions answer's size), asked 1, 16 and 50 at a time, and of 256 KiB (a long
// conversation read, a task's output), 1 and 16 at a time. For each it prints the calls per second, and the CPU per
// call of the client and of the server (from /proc).
//
//   BENCH_ROUNDS   rounds (default 4)
//   BENCH_CALLS    calls per round and client of 3.5 KB answers, 16 or 50 at once (default 10000); a fifth of it one
//                  at a time, a tenth of it for 256 KiB answers
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeGenericClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';
import { createClient, makeServiceCredentials, serviceAuth, startGrpcServer, type ClientConstructor, type ServiceCredentials } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { countCpu, fixed, inTurn, median } from './support/figures.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CALLS = Number(process.env.BENCH_CALLS ?? 10_000);
/** What is measured: answers of `bytes`, asked `atOnce` at a time, `share` of BENCH_CALLS calls. */
const CASES = [
  { bytes: 3_500, atOnce: 1, share: 1 / 5 },
  { bytes: 3_500, atOnce: 16, share: 1 },
  { bytes: 3_500, atOnce: 50, share: 1 },
  { bytes: 256 * 1024, atOnce: 1, share: 1 / 10 },
  { bytes: 256 * 1024, atOnce: 16, share: 1 / 10 },
];
const WARM_UP = 2_000;
/** HTTP/2's default flow-control window, which the relay's channels raise. */
const DEFAULT_WINDOW = 65_535;

const identity = (bytes: Buffer) => bytes;
const ECHO: ServiceDefinition = {
  echo: {
    path: '/bench.Hop/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'echo',
  },
};

interface EchoClient {
  echo(request: Buffer, callback: (error: Error | null, answer?: Buffer) => void): void;
  close(): void;
}

/** The server side, in the child process: answers each call with as many bytes as its first 4 ask for, until killed. */
async function serve(credentials: ServiceCredentials): Promise<void> {
  const answers = new Map(CASES.map(({ bytes }) => [bytes, Buffer.alloc(bytes, 7)]));
  const echo = (call: { request: Buffer }, done: (error: null, answer: Buffer | undefined) => void) => done(null, answers.get(call.request.readUInt32BE(0)));
  const server = await startGrpcServer({
    port: 0,
    services: [{ definition: ECHO, implementation: { echo }, callers: { echo: ['gateway'] } }],
    auth: serviceAuth(credentials, 'session'),
    logger: createLogger({ name: 'bench-hop', level: 'silent' }),
  });
  process.send!(server.port);
}

/** An answer's size as the figures name it: 3.5 KB, 256 KiB. */
const sizeOf = (bytes: number) => (bytes >= 10 * 1024 ? `${bytes / 1024} KiB` : `${fixed(bytes / 1000)} KB`);

/** A call asking for an answer of `bytes`, in a request of 100 bytes. */
function call(client: EchoClient, bytes: number): Promise<void> {
  const request = Buffer.alloc(100);
  request.writeUInt32BE(bytes, 0);
  return new Promise((resolve, reject) => client.echo(request, (error) => (error ? reject(error) : resolve())));
}

/** `total` calls for answers of `bytes` shared by `atOnce` callers; calls per second. */
async function run(client: EchoClient, bytes: number, total: number, atOnce: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < total) {
        next += 1;
        await call(client, bytes);
      }
    }),
  );
  return (1000 * total) / (performance.now() - start);
}

if (process.argv[2] === 'serve') {
  await serve(JSON.parse(process.argv[3]!) as ServiceCredentials);
} else {
  const credentials = makeServiceCredentials();
  const child = fork(fileURLToPath(import.meta.url), ['serve', JSON.stringify(credentials)], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve(message as number)));
  const auth = serviceAuth(credentials, 'gateway');
  // The generated clients are such a class with typed methods; createClient takes this one the same way.
  const Client = makeGenericClientConstructor(ECHO, 'Hop') as unknown as ClientConstructor<EchoClient>;
  const clients = {
    'relay (1 MiB window)': createClient(Client, `127.0.0.1:${port}`, auth),
    'HTTP/2 default (64 KiB)': createClient(Client, `127.0.0.1:${port}`, auth, { 'grpc-node.flow_control_window': DEFAULT_WINDOW }),
  };
  for (const client of Object.values(clients)) for (const { bytes } of CASES) await run(client, bytes, WARM_UP, 16);
  const pids = { client: process.pid, server: child.pid };
  const figures: Record<string, { rate: number; clientMs: number; serverMs: number }[]> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const { bytes, atOnce, share } of CASES) {
      const total = Math.round(CALLS * share);
      // Each first in every other round: the first after a case of large answers pays for collecting them.
      for (const [name, client] of inTurn(Object.entries(clients), round - 1)) {
        const cpu = await countCpu(pids);
        const rate = await run(client, bytes, total, atOnce);
        const { client: clientMs, server: serverMs } = await cpu(total);
        const key = `${sizeOf(bytes)} | ${atOnce} | ${name}`;
        (figures[key] ??= []).push({ rate, clientMs: clientMs!, serverMs: serverMs! });
        console.log(
          `round ${round}: ${key.padEnd(40)} ${fixed(rate, 0).padStart(6)} calls/s, CPU per call: client ${fixed(1000 * clientMs!, 0)} µs, server ${fixed(1000 * serverMs!, 0)} µs`,
        );
      }
    }
  }
  console.log(`\nmedian of ${ROUNDS} rounds:\n| answer | calls at once | client | calls/s | CPU per call: client, server |\n|---|---|---|---|---|`);
  for (const [key, runs] of Object.entries(figures)) {
    const of = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
    console.log(
      `| ${key} | ${fixed(
        of((r) => r.rate),
        0,
      )} | ${fixed(1000 * of((r) => r.clientMs), 0)} µs, ${fixed(1000 * of((r) => r.serverMs), 0)} µs |`,
    );
  }
  for (const client of Object.values(clients)) client.close();
  child.kill();
}
