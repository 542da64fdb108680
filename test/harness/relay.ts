/**
 * Starts a whole relay for end-to-end tests: the six services as real processes, each with its own fresh database
 * and one shared nats-server of the suite's own, exactly as `relay up` starts them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { caughtUp, connectBus } from '@relay/bus';
import { createLogger } from '@relay/telemetry';
import { callUnary, checkHealth, createClient, makeServiceCredentials, serviceAuth, type ServiceCredentials } from '@relay/rpc';
import { createTestDatabase, freePort, startNats, TEST_NATS_USER, type NatsServer } from '@relay/testing';
import { parseClockSpec } from '@relay/clock';
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { oneAtATime } from './one-at-a-time.ts';
import { until } from './until.ts';
import { launchImage } from './service-image.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const STATEFUL = ['session', 'subscription', 'scheduler', 'question', 'pairing'] as const;
export type ServiceName = (typeof STATEFUL)[number] | 'gateway';
/** Each stateful service's database. */
export type DatabaseUrls = Record<(typeof STATEFUL)[number], string>;

export interface RelayOptions {
  name?: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT for every service. */
  otlpEndpoint?: string;
  /** Extra environment for every service. */
  env?: Record<string, string>;
  /** How long each service may take to become ready (default 90 s); several relays starting on a busy machine need more. */
  readyTimeoutMs?: number;
  /** Extra node options for every service process, before the bundle (e.g. --cpu-prof for a benchmark's profile). */
  nodeArgs?: string[];
  /**
   * Session service replicas (default 1), each a process on a port of its own sharing its database and the bus; every
   * service dials them all through one `ipv4:` target, balanced round robin, as `relay up --replicas session=N` runs them.
   */
  sessionReplicas?: number;
  /** Runs each service from its image (scripts/build-images.sh) rather than its dist/: the image's name for each. */
  images?: (service: ServiceName) => string;
}

/** Service processes still running: a test process that exits without stop() (a timed-out beforeAll) kills them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

class ServiceProcess {
  private child?: ChildProcess;
  output = '';
  constructor(
    readonly name: ServiceName,
    private readonly env: Record<string, string>,
    private readonly nodeArgs: string[] = [],
    private readonly image?: string,
  ) {}

  start(): void {
    if (this.image === undefined) {
      // The prebuilt service (npm run build; the e2e project's global setup rebuilds a stale one), as in production.
      this.child = spawn(process.execPath, [...this.nodeArgs, '--enable-source-maps', '--import', './dist/register.js', 'dist/main.js'], {
        cwd: `${root}/services/${this.name}`,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } else {
      // The relay's clock control file is shared with the container; the rest of the host stays outside.
      const clock = this.env['RELAY_CLOCK_CONTROL'];
      const launch = launchImage(this.image, this.env, { shared: clock === undefined ? [] : [dirname(clock)] });
      this.child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'pipe'] });
      this.child.once('exit', () => launch.remove());
    }
    const child = this.child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }

  /** Another replica of this service: the same environment but its port (the gateway's HTTP one, another's gRPC one). */
  replica(port: number): ServiceProcess {
    const listens: Record<string, string> = this.name === 'gateway' ? { PORT: String(port) } : { GRPC_PORT: String(port) };
    return new ServiceProcess(this.name, { ...this.env, ...listens }, this.nodeArgs, this.image);
  }

  /** The process id while it runs (a benchmark reads its CPU time and memory from /proc). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL: the process gets no chance to clean up. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** SIGTERM and wait for the graceful shutdown. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/** What a test needs to reach a running relay: enough to connect from another process (see shared-relay.ts). */
export interface RelayConnection {
  name: string;
  gatewayUrl: string;
  sessionAddress: string;
  /** The relay's gRPC service credentials; the tests call the session service as the gateway. */
  credentials: ServiceCredentials;
  databaseUrls: DatabaseUrls;
  /** The suite's nats-server: its URL and every password it lets in with (the security tests look for them leaking). */
  bus: { url: string; passwords: string[] };
}

/** A relay as one of its users sees it: the user API with that user's token, agents over MCP, the session service. */
export interface RelayClient {
  name: string;
  gatewayUrl: string;
  mcpUrl: string;
  /** The user the tests act as, and their token for the user API. */
  userId: string;
  userToken: string;
  databaseUrls: DatabaseUrls;
  sessionClient: SessionServiceClient;
  /** Creates an external session through the user API; returns its id and bearer token. */
  createExternalSession(title: string): Promise<{ id: string; token: string }>;
  /** Calls the user API (`/api/v1…`) with the user's token; returns the status and the parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** An MCP client (the SDK's) connected as the session whose token is given. */
  connectAgent(token: string): Promise<Client>;
  /** Lets the relay go: a relay of the test's own stops; a shared one only loses this client. */
  stop(): Promise<void>;
}

/** A relay of the test's own: its service processes too, to stop, kill and restart. */
export interface Relay extends RelayClient {
  connection: RelayConnection;
  services: Record<ServiceName, ServiceProcess>;
  /** The session service's replicas (RelayOptions.sessionReplicas), the first being services.session. */
  sessionReplicas: SessionReplica[];
  /** How long after all six processes were spawned each service first answered its health check (ms). */
  startUpMs: Partial<Record<ServiceName, number>>;
  /** Waits until the service answers its health check again. */
  waitReady(name: ServiceName): Promise<void>;
  /**
   * Moves the relay's virtual clock (RELAY_CLOCK) forward to `instant` at once, timers included, as a
   * time-skipping test environment does; resolves once every running service has moved. A stopped service moves
   * when it starts again. An instant already passed changes nothing.
   */
  jumpTo(instant: string | Date): Promise<void>;
  /**
   * Resolves once the relay has no bus work left: every service's outbox is published and every durable consumer
   * has handled what its stream held (a positive sign that the effects of what was done so far are over).
   */
  settled(): Promise<void>;
  /** The relay's virtual clock (RELAY_CLOCK) now, jumps included. */
  now(): Date;
  logs(): string;
}

/** One session service replica: its process, its own address, and a wait until it answers its health check. */
export interface SessionReplica {
  process: ServiceProcess;
  address: string;
  waitReady(): Promise<void>;
}

/** Calls the user API (`/api/v1…`) with a user's token; the status and the parsed body. */
export async function callUserApi(gatewayUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A client of the relay at `connection`, with no user yet (see signIn). */
export function connectRelay(connection: RelayConnection): RelayClient {
  const { gatewayUrl } = connection;
  const client: RelayClient = {
    name: connection.name,
    gatewayUrl,
    mcpUrl: `${gatewayUrl}/mcp`,
    userId: '',
    userToken: '',
    databaseUrls: connection.databaseUrls,
    sessionClient: createClient(SessionServiceClient, connection.sessionAddress, serviceAuth(connection.credentials, 'gateway')),
    async createExternalSession(title) {
      const response = await fetch(`${gatewayUrl}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ external: true, title }),
      });
      if (!response.ok) throw new Error(`POST /api/v1/sessions answered ${response.status}: ${await response.text()}`);
      const body = (await response.json()) as { session: { id: string }; token: string };
      return { id: body.session.id, token: body.token };
    },
    api: (method, path, body) => callUserApi(gatewayUrl, client.userToken, method, path, body),
    async connectAgent(token) {
      const agent = new Client({ name: 'e2e-agent', version: '0.0.0' });
      await agent.connect(new StreamableHTTPClientTransport(new URL(client.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return agent;
    },
    async stop() {
      client.sessionClient.close();
    },
  };
  return client;
}

/** Makes a user on the relay (an admin when asked; the first user is one anyway) and acts as them from now on. */
export async function signIn(client: RelayClient, name: string, role?: 'admin' | 'member'): Promise<void> {
  const user = await callUnary<{ name: string; role?: string }, { userId: string; token: string }>(client.sessionClient, 'createUser', {
    name,
    ...(role ? { role } : {}),
  });
  client.userId = user.userId;
  client.userToken = user.token;
}

/** Resolves once `check` answers true (a check that fails counts as false). */
async function whenTrue(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  await until(what, async () => ((await check().catch(() => false)) ? true : undefined), { timeoutMs });
}

/** Relay.settled(): every outbox published, then every durable consumer of every stream caught up. */
async function settled(nats: NatsServer, databaseUrls: DatabaseUrls): Promise<void> {
  await Promise.all(
    Object.values(databaseUrls).map(async (url) => {
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        await until(`the outbox of ${new URL(url).pathname} published`, async () => {
          const { rows } = await db.query<{ left: string }>('SELECT count(*) AS "left" FROM "outbox" WHERE "published_at" IS NULL');
          return Number(rows[0]!.left) === 0 ? true : undefined;
        });
      } finally {
        await db.end();
      }
    }),
  );
  const bus = await connectBus({
    url: nats.url,
    name: 'e2e-settled',
    logger: createLogger({ name: 'e2e', level: 'warn' }),
    ...nats.credentials(TEST_NATS_USER),
  });
  try {
    const abandon = AbortSignal.timeout(60_000);
    for await (const stream of bus.jsm.streams.list()) {
      for await (const consumer of bus.jsm.consumers.list(stream.config.name)) {
        if (!(await caughtUp(bus, stream.config.name, consumer.name, abandon)))
          throw new Error(`${stream.config.name}/${consumer.name} not caught up within 60 s`);
      }
    }
  } finally {
    await bus.close();
  }
}

/** Starts a relay, once no other relay of this test run is starting (one-at-a-time.ts); call stop() in afterAll. */
export function startRelay(options: RelayOptions = {}): Promise<Relay> {
  return oneAtATime(() => bootRelay(options));
}

async function bootRelay(options: RelayOptions): Promise<Relay> {
  const name = options.name ?? 'e2e';
  // The nats-server starts while the five databases are made: neither needs the other.
  const [natsStarted, ...created] = await Promise.allSettled([
    startNats(),
    ...STATEFUL.map((service) => createTestDatabase({ migrationsDir: `${root}/services/${service}/prisma/migrations` })),
  ]);
  const databases = created.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (natsStarted.status === 'rejected' || databases.length < created.length) {
    // Nothing of a relay that cannot start stays behind (the shared relay starts in the test runner's own process).
    await Promise.all([natsStarted.status === 'fulfilled' ? natsStarted.value.stop() : undefined, ...databases.map((database) => database.drop())]);
    throw [natsStarted, ...created].find((result) => result.status === 'rejected')?.reason;
  }
  const nats = natsStarted.value;
  const clockDir = await mkdtemp(join(tmpdir(), 'relay-clock-'));
  const clockControl = join(clockDir, 'skipped');
  const clockEpoch = Date.now();
  const ports = Object.fromEntries(await Promise.all([...STATEFUL, 'gateway'].map(async (s) => [s, await freePort()] as const))) as Record<ServiceName, number>;
  const address = (service: ServiceName) => `127.0.0.1:${ports[service]}`;
  const replicaPorts = [ports.session, ...(await Promise.all(Array.from({ length: (options.sessionReplicas ?? 1) - 1 }, () => freePort())))];
  const sessionTarget = replicaPorts.length === 1 ? address('session') : `ipv4:${replicaPorts.map((port) => `127.0.0.1:${port}`).join(',')}`;
  // Credentials made at each start, as `relay up` makes them: a gRPC token and a NATS user per service.
  const credentials = makeServiceCredentials();
  const credentialsEnv = (service: ServiceName) => ({ RELAY_SERVICE_TOKEN: credentials.tokens[service], RELAY_SERVICE_KEYS: credentials.keys });
  const common: Record<string, string> = {
    LOG_LEVEL: 'warn',
    RELAY_CLOCK_EPOCH: String(clockEpoch),
    RELAY_CLOCK_CONTROL: clockControl,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...(options.otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint } : {}),
    SESSION_GRPC_ADDR: sessionTarget,
    SUBSCRIPTION_GRPC_ADDR: address('subscription'),
    SCHEDULER_GRPC_ADDR: address('scheduler'),
    QUESTION_GRPC_ADDR: address('question'),
    PAIRING_GRPC_ADDR: address('pairing'),
    RELAY_GATEWAY_URL: `http://127.0.0.1:${ports.gateway}`,
    RELAY_NAME: name,
    ...options.env,
  };
  const services = {} as Record<ServiceName, ServiceProcess>;
  const databaseUrls = {} as DatabaseUrls;
  STATEFUL.forEach((service, index) => {
    databaseUrls[service] = databases[index]!.url;
    services[service] = new ServiceProcess(
      service,
      {
        ...common,
        ...credentialsEnv(service),
        ...nats.env(service),
        OTEL_SERVICE_NAME: `relay-${service}`,
        DATABASE_URL: databases[index]!.url,
        GRPC_PORT: String(ports[service]),
        RELAY_AGENT_SESSIONS: 'on',
      },
      options.nodeArgs,
      options.images?.(service),
    );
  });
  services.gateway = new ServiceProcess(
    'gateway',
    {
      ...common,
      ...credentialsEnv('gateway'),
      OTEL_SERVICE_NAME: 'relay-gateway',
      PORT: String(ports.gateway),
      HOST: '127.0.0.1',
    },
    options.nodeArgs,
    options.images?.('gateway'),
  );
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;

  const waitReady = (service: ServiceName) =>
    service === 'gateway'
      ? whenTrue('the gateway answering /readyz', async () => (await fetch(`${gatewayUrl}/readyz`)).ok, options.readyTimeoutMs)
      : whenTrue(
          `the ${service} service answering its health check`,
          () => checkHealth(address(service), '', 2000, serviceAuth(credentials, 'gateway')),
          options.readyTimeoutMs,
        );

  let skipped = 0;
  const now = () => {
    const clock = parseClockSpec(common['RELAY_CLOCK']);
    if (clock.kind === 'system') throw new Error('the relay runs the system clock: start it with RELAY_CLOCK for a virtual one');
    return new Date(clock.start.getTime() + (Date.now() - clockEpoch) * clock.rate + skipped);
  };
  const jumpTo = async (instant: string | Date) => {
    const ahead = new Date(instant).getTime() - now().getTime();
    if (ahead <= 0) return;
    skipped += Math.ceil(ahead);
    await writeFile(`${clockControl}.tmp`, String(skipped));
    await rename(`${clockControl}.tmp`, clockControl);
    const running = [...STATEFUL, 'gateway' as const].filter((service) => services[service].running);
    await whenTrue(
      'every service on the skipped clock',
      async () => {
        const applied = await Promise.all(running.map((service) => readFile(`${clockControl}.${service}`, 'utf8').catch(() => '')));
        return applied.every((figure) => figure === String(skipped));
      },
      30_000,
    );
  };

  const sessionReplicas: SessionReplica[] = replicaPorts.map((port, index) => ({
    process: index === 0 ? services.session : services.session.replica(port),
    address: `127.0.0.1:${port}`,
    waitReady: () =>
      whenTrue(
        `session replica ${index + 1} answering its health check`,
        () => checkHealth(`127.0.0.1:${port}`, '', 2000, serviceAuth(credentials, 'gateway')),
        options.readyTimeoutMs,
      ),
  }));
  const extraReplicas = sessionReplicas.slice(1);

  const bus = { url: nats.url, passwords: [...STATEFUL, TEST_NATS_USER].map((user) => nats.env(user).NATS_PASSWORD) };
  const connection: RelayConnection = { name, gatewayUrl, sessionAddress: address('session'), credentials, databaseUrls, bus };
  const client = connectRelay(connection);
  const relay: Relay = Object.assign(client, {
    connection,
    services,
    sessionReplicas,
    startUpMs: {},
    waitReady,
    jumpTo,
    now,
    settled: () => settled(nats, databaseUrls),
    logs: () => [...Object.values(services), ...extraReplicas.map((replica) => replica.process)].map((s) => `--- ${s.name}\n${s.output}`).join('\n'),
    async stop() {
      client.sessionClient.close();
      await services.gateway.stop();
      await Promise.all([...STATEFUL.map((service) => services[service]), ...extraReplicas.map((replica) => replica.process)].map((service) => service.stop()));
      await nats.stop();
      await Promise.all(databases.map((database) => database.drop()));
      await rm(clockDir, { recursive: true, force: true });
    },
  });

  try {
    for (const service of [...STATEFUL, 'gateway'] as const) services[service].start();
    for (const replica of extraReplicas) replica.process.start();
    const spawnedAt = performance.now();
    await Promise.all(
      [...STATEFUL, 'gateway'].map(async (service) => {
        await waitReady(service as ServiceName);
        relay.startUpMs[service as ServiceName] = performance.now() - spawnedAt;
      }),
    );
    await Promise.all(extraReplicas.map((replica) => replica.waitReady()));
    await signIn(relay, 'e2e user');
  } catch (error) {
    const logs = relay.logs();
    await relay.stop().catch(() => undefined);
    throw new Error(`the relay did not start: ${(error as Error).message}\n${logs}`, { cause: error });
  }
  return relay;
}
