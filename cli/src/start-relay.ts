import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { natsUsers, RELAY_BUS_ROLES } from '@relay/config';
import { migrate } from '@relay/db';
import { checkHealth, makeServiceCredentials, serviceAuth } from '@relay/rpc';
import { assignPorts, sparePortsNeeded, type PortRequest } from './assign-ports.ts';
import { CliError } from './cli-error.ts';
import type { UpConfig } from './config.ts';
import { clearStalePostmaster, startEmbeddedPostgres } from './embedded-postgres-server.ts';
import { ensureTerminalSession } from './ensure-terminal-session.ts';
import { formatBanner } from './format-banner.ts';
import { GatewayApi } from './gateway-api.ts';
import type { Lifecycle } from './lifecycle.ts';
import { describeExit, ManagedProcess } from './managed-process.ts';
import { RestartingService } from './restarting-service.ts';
import { findOrInstallNatsServer, startNatsServer, writeNatsConfig } from './nats-server-process.ts';
import { isPortFree, osFreePorts } from './port-probe.ts';
import { serviceDir, type RelayPaths } from './relay-paths.ts';
import type { Reporter } from './reporter.ts';
import {
  DEFAULT_GATEWAY_PORT,
  DEFAULT_GRPC_PORTS,
  GRPC_SERVICE_NAMES,
  SERVICE_DATABASES,
  SERVICE_NAMES,
  databaseUrlFor,
  grpcAddress,
  replicaName,
  serviceEnv,
  type Replicas,
  type GrpcServiceName,
  type ServiceName,
} from './service-plan.ts';
import type { UpLockFile } from './up-lock-file.ts';
import { waitUntilReady } from './wait-until-ready.ts';
import { buildStaleServices } from '../../scripts/build.mjs';

/** The bundle of a service that scripts/build.mjs makes, relative to its folder. */
const SERVICE_ENTRY = 'dist/main.js';
const EMBEDDED_POSTGRES_PORT = 54329;
const NATS_PORT = 4222;
const SERVICE_STOP_GRACE_MS = 10_000;
const READY_TIMEOUT_MS = 120_000;
/** Variables of the shell that would switch a service to mutual TLS or another host. */
const INHERITED_GRPC_VARIABLES = ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY', 'GRPC_HOST', 'GRPC_HEALTH_PORT', 'RELAY_SERVICE_TOKEN', 'RELAY_SERVICE_KEYS'];

/**
 * Brings the relay up: NATS and PostgreSQL (ours or the user's), migrations, the six services, the
 * first user and the "Terminal" session; prints the banner. Everything started is added to
 * `lifecycle`, which stops it; a stop request makes this throw StopRequested between steps.
 */
export async function startRelay(
  config: UpConfig,
  paths: RelayPaths,
  lockFile: UpLockFile,
  lifecycle: Lifecycle,
  reporter: Reporter,
  options: { signInLink: boolean; replicas?: Replicas } = { signInLink: false },
): Promise<void> {
  const replicas = options.replicas ?? {};
  const isRoot = process.getuid?.() === 0;
  for (const service of SERVICE_NAMES) {
    const dir = serviceDir(paths, service);
    if (!existsSync(join(dir, 'src', 'main.ts')) && !existsSync(join(dir, SERVICE_ENTRY))) {
      throw new CliError(`services/${service} has neither src/main.ts nor ${SERVICE_ENTRY}; this checkout cannot run the ${service} service`);
    }
    if (existsSync(join(dir, 'prisma', 'schema.prisma')) && !existsSync(join(dir, 'src', 'generated'))) {
      throw new CliError(`services/${service}/src/generated is missing: run "npm run generate" (npm run up does it for you)`);
    }
  }
  // The services run as prebuilt JavaScript, as in production: rebuild the ones older than their sources.
  await buildStaleServices((name) => reporter.info(`Building the ${name} service (${SERVICE_ENTRY} is older than its sources)`));
  lifecycle.signal.throwIfAborted();
  const natsBinary =
    config.natsUrl === undefined ? await findOrInstallNatsServer({ env: config.inheritedEnv, isRoot, reporter, signal: lifecycle.signal }) : undefined;
  lifecycle.signal.throwIfAborted();

  // A PostgreSQL left running by a killed `relay up` still holds its port; stop it before choosing ports.
  if (config.databaseUrl === undefined) await clearStalePostmaster(paths.postgresDir, reporter);
  const ports = await choosePorts(config, replicas);
  const host = config.host;
  const gatewayUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${ports.gateway}`;
  const mcpUrl = `${gatewayUrl}/mcp`;
  lockFile.update({ gatewayUrl, mcpUrl });

  let databaseServerUrl = config.databaseUrl;
  if (databaseServerUrl === undefined) {
    reporter.info(`Starting PostgreSQL (embedded) on 127.0.0.1:${ports.postgres}`);
    const postgres = await startEmbeddedPostgres({
      dataDir: paths.postgresDir,
      passwordFile: paths.postgresPasswordFile,
      port: ports.postgres,
      isRoot,
      reporter,
    });
    lifecycle.add({ name: 'PostgreSQL', stop: postgres.stop });
    databaseServerUrl = postgres.serverUrl;
  }

  for (const service of GRPC_SERVICE_NAMES) {
    const migrationsDir = join(serviceDir(paths, service), 'prisma', 'migrations');
    if (!existsSync(migrationsDir)) continue;
    const applied = await migrate({ databaseUrl: databaseUrlFor(databaseServerUrl, SERVICE_DATABASES[service]), migrationsDir });
    if (applied.length > 0) reporter.info(`Migrated ${SERVICE_DATABASES[service]}: ${applied.join(', ')}`);
    lifecycle.signal.throwIfAborted();
  }

  let natsUrl = config.natsUrl;
  let natsPasswords: Record<GrpcServiceName, string> | undefined;
  if (natsBinary !== undefined) {
    // Our nats-server lets in only the services, each as its own user with its own subjects; new passwords each start.
    natsPasswords = Object.fromEntries(GRPC_SERVICE_NAMES.map((service) => [service, randomBytes(24).toString('base64url')])) as Record<
      GrpcServiceName,
      string
    >;
    const passwords = natsPasswords;
    writeNatsConfig(
      paths.natsConfigFile,
      natsUsers(RELAY_BUS_ROLES, (service) => ({ value: passwords[service as GrpcServiceName] })),
    );
    reporter.info(`Starting NATS (${natsBinary}) on 127.0.0.1:${ports.nats}`);
    const nats = await startNatsServer({ binary: natsBinary, port: ports.nats, storeDir: paths.natsStoreDir, configFile: paths.natsConfigFile, reporter });
    lockFile.addChild('nats-server', nats.process.pid);
    watchExit(nats.process, 'nats-server', lifecycle);
    lifecycle.add({ name: 'NATS', stop: async () => void (await nats.process.stop(SERVICE_STOP_GRACE_MS)), kill: () => nats.process.kill() });
    natsUrl = nats.url;
  }
  if (natsUrl === undefined) throw new Error('unreachable: NATS has neither a URL nor a binary');

  const scaled = GRPC_SERVICE_NAMES.filter((service) => ports.grpc[service].length > 1);
  reporter.info(
    scaled.length === 0
      ? 'Starting the services'
      : `Starting the services (${scaled.map((service) => `${service} ×${ports.grpc[service].length} on ${ports.grpc[service].join(', ')}`).join('; ')})`,
  );
  // Fresh at every start and never written down: a service proves itself with its token, checks the others' keys.
  const serviceCredentials = makeServiceCredentials();
  const gatewayAuth = serviceAuth(serviceCredentials, 'gateway');
  const clockEpochMs = config.clockEpochMs ?? Date.now();
  const plan = {
    grpcPorts: ports.grpc,
    gatewayPort: ports.gateway,
    gatewayHost: host,
    publicUrl: config.publicUrl ?? gatewayUrl,
    natsUrl,
    databaseServerUrl,
    relayName: config.relayName,
    agentSessions: config.agentSessions,
    logLevel: config.logLevel,
    clockEpochMs,
    ...(config.clockSpec !== undefined ? { clockSpec: config.clockSpec } : {}),
    serviceCredentials,
    natsPasswords,
  };
  const spawnService = async (name: ServiceName, replica = 0) => {
    // On one machine the services prove themselves with the tokens above, never with certificates from the shell.
    const inherited = Object.fromEntries(Object.entries(config.inheritedEnv).filter(([variable]) => !INHERITED_GRPC_VARIABLES.includes(variable)));
    const env: NodeJS.ProcessEnv = { ...inherited, ...serviceEnv(name, plan, replica) };
    if (name === 'gateway') delete env['DATABASE_URL'];
    const label = replicaName(name, replica);
    // A service that exits on its own is started again (with backoff, said in the log) rather than stopping the relay.
    return RestartingService.start(label, {
      start: () =>
        ManagedProcess.start({
          name,
          command: process.execPath,
          // The telemetry hook first, so that it instruments what the service loads.
          args: ['--enable-source-maps', '--import', './dist/register.js', SERVICE_ENTRY],
          cwd: serviceDir(paths, name),
          env,
          onLine: (_stream, line) => reporter.child(label, line),
        }),
      started: (child) => lockFile.addChild(label, child.pid),
      warn: (message) => reporter.warn(message),
    });
  };
  const backends: RestartingService[] = [];
  lifecycle.add({
    name: 'services',
    stop: async () => void (await Promise.all(backends.map((child) => child.stop(SERVICE_STOP_GRACE_MS)))),
    kill: () => backends.forEach((child) => child.kill()),
  });
  // Each replica of a service (`--replicas`) is a process of its own on its own port; the others dial them all (an
  // `ipv4:` target, balanced round robin), and they share their database and durable consumers, as pods do.
  await Promise.all(GRPC_SERVICE_NAMES.flatMap((name) => ports.grpc[name].map(async (_port, replica) => backends.push(await spawnService(name, replica)))));
  const gateway = await spawnService('gateway');
  lifecycle.add({ name: 'gateway', stop: async () => void (await gateway.stop(SERVICE_STOP_GRACE_MS)), kill: () => gateway.kill() });

  await waitUntilReady(
    [
      ...GRPC_SERVICE_NAMES.flatMap((service) =>
        ports.grpc[service].map((port, replica) => ({
          name: replicaName(service, replica),
          where: grpcAddress(port),
          check: () => checkHealth(grpcAddress(port), '', 2000, gatewayAuth),
        })),
      ),
      { name: 'gateway', where: `${gatewayUrl}/readyz`, check: async () => (await fetch(`${gatewayUrl}/readyz`)).ok },
    ],
    { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250, signal: lifecycle.signal },
  );

  const terminal = await ensureTerminalSession({
    credentialsFile: paths.credentialsFile,
    gatewayUrl,
    sessionGrpcAddress: grpcAddress(ports.grpc.session),
    gatewayAuth,
    userName: userInfo().username,
    reporter,
    signal: lifecycle.signal,
  });
  // Only where it was asked for (showsSignInLink): a link in a log file would sign its reader in as the admin.
  const consoleUrl = options.signInLink ? await signInLink(gatewayUrl, terminal.userToken, reporter) : undefined;
  lifecycle.signal.throwIfAborted();
  reporter.ready(
    formatBanner({
      relayName: config.relayName,
      gatewayUrl,
      mcpUrl,
      token: terminal.token,
      sessionTitle: terminal.title,
      ...(consoleUrl === undefined ? {} : { consoleUrl }),
    }),
    { relay: config.relayName, gatewayUrl, mcpUrl, token: terminal.token, session: terminal.title, ...(consoleUrl === undefined ? {} : { consoleUrl }) },
  );
}

/** The web console's one-time sign-in link; without one the relay still runs, and the banner says to sign in with the token. */
async function signInLink(gatewayUrl: string, userToken: string, reporter: Reporter): Promise<string | undefined> {
  try {
    return (await new GatewayApi(gatewayUrl, userToken).createSignInLink()).url;
  } catch (error) {
    reporter.warn(`no console sign-in link: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

type Ports = { gateway: number; grpc: Record<GrpcServiceName, number[]>; nats: number; postgres: number };

/** Replica `index` (from 1) of a service prefers its default port plus 100 × index: 50051, 50151, 50251 for the session service. */
const REPLICA_PORT_STEP = 100;

/** The default ports where free, others where not; RELAY_PORT must be free as given. */
async function choosePorts(config: UpConfig, replicas: Replicas): Promise<Ports> {
  const replicaIndexes = (service: GrpcServiceName) => Array.from({ length: replicas[service] ?? 1 }, (_, index) => index);
  const requests: PortRequest[] = [
    {
      name: 'gateway',
      preferred: config.relayPort ?? DEFAULT_GATEWAY_PORT,
      strict: config.relayPort !== undefined,
      source: 'RELAY_PORT',
    },
    ...GRPC_SERVICE_NAMES.flatMap((service) =>
      replicaIndexes(service).map((index) => ({
        name: replicaName(service, index),
        preferred: DEFAULT_GRPC_PORTS[service] + REPLICA_PORT_STEP * index,
        strict: false,
      })),
    ),
    ...(config.natsUrl === undefined ? [{ name: 'nats', preferred: NATS_PORT, strict: false }] : []),
    ...(config.databaseUrl === undefined ? [{ name: 'postgres', preferred: EMBEDDED_POSTGRES_PORT, strict: false }] : []),
  ];
  const probes = await Promise.all(requests.map(async (request) => [request.preferred, await isPortFree(request.preferred)] as const));
  const busy = new Set(probes.filter(([, free]) => !free).map(([port]) => port));
  const assigned = assignPorts(requests, busy, await osFreePorts(sparePortsNeeded(requests, busy)));
  const port = (name: string) => assigned.get(name) ?? 0;
  return {
    gateway: port('gateway'),
    grpc: Object.fromEntries(
      GRPC_SERVICE_NAMES.map((service) => [service, replicaIndexes(service).map((index) => port(replicaName(service, index)))]),
    ) as Record<GrpcServiceName, number[]>,
    nats: port('nats'),
    postgres: port('postgres'),
  };
}

/** A child that exits while we are not stopping it brings everything down with a non-zero exit. */
function watchExit(child: ManagedProcess, label: string, lifecycle: Lifecycle): void {
  void child.exited.then((exit) => {
    if (!child.stopping) lifecycle.requestStop(`${label} ${describeExit(exit)}; stopping everything`);
  });
}
