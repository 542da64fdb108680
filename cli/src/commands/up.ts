import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { migrate } from '@relay/db';
import { checkHealth } from '@relay/rpc';
import { assignPorts, sparePortsNeeded, type PortRequest } from '../assign-ports.ts';
import { CliError } from '../cli-error.ts';
import { loadUpConfig, type UpConfig } from '../config.ts';
import { startEmbeddedPostgres } from '../embedded-postgres-server.ts';
import { ensureTerminalSession } from '../ensure-terminal-session.ts';
import { formatBanner } from '../format-banner.ts';
import { Lifecycle, StopRequested } from '../lifecycle.ts';
import { describeExit, ManagedProcess } from '../managed-process.ts';
import { findOrInstallNatsServer, startNatsServer } from '../nats-server-process.ts';
import { isPortFree, osFreePorts } from '../port-probe.ts';
import { relayPaths, serviceDir, type RelayPaths } from '../relay-paths.ts';
import { Reporter } from '../reporter.ts';
import {
  DEFAULT_GATEWAY_PORT,
  DEFAULT_GRPC_PORTS,
  GRPC_SERVICE_NAMES,
  SERVICE_DATABASES,
  SERVICE_NAMES,
  databaseUrlFor,
  grpcAddress,
  serviceEnv,
  type GrpcServiceName,
  type ServiceName,
} from '../service-plan.ts';
import { acquireUpLock, stopLeftovers, type UpLockFile } from '../up-lock-file.ts';
import { waitUntilReady } from '../wait-until-ready.ts';

const EMBEDDED_POSTGRES_PORT = 54329;
const NATS_PORT = 4222;
const SERVICE_STOP_GRACE_MS = 10_000;
const READY_TIMEOUT_MS = 120_000;

export type UpIo = {
  /** Defaults to the process's environment. */
  env?: NodeJS.ProcessEnv;
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  /** True when a launcher holds an IPC channel to us: its disconnect means it is gone. */
  hasParentChannel: boolean;
};

/**
 * `relay up`: the whole relay on this machine until Ctrl-C. Returns the exit code: 0 after a
 * requested stop (or when a relay already runs here), 1 when something failed or died.
 */
export async function runUp(options: { json: boolean }, io: UpIo): Promise<number> {
  const config = loadUpConfig(hostname(), io.env);
  const reporter = new Reporter({
    json: options.json,
    color: io.out.isTTY === true && !config.noColor,
    level: config.logLevel,
    out: io.out,
    err: io.err,
  });
  const paths = relayPaths();
  const acquired = acquireUpLock(paths.lockFile, new Date());
  if (acquired.kind === 'running') {
    reporter.print(acquired.message);
    return 0;
  }
  const lifecycle = new Lifecycle();
  const lockFile = acquired.lockFile;
  lifecycle.add({ name: 'lock', silent: true, stop: async () => lockFile.release(), kill: () => lockFile.release() });
  const uninstall = installStopTriggers(lifecycle, reporter, io.hasParentChannel);
  let exitCode = 0;
  try {
    if (acquired.stale !== undefined) await stopLeftovers(acquired.stale, (message) => reporter.info(message));
    await start(config, paths, lockFile, lifecycle, reporter);
    await lifecycle.stopRequested;
  } catch (error) {
    if (!(error instanceof StopRequested)) {
      reporter.error(error instanceof Error ? error.message : String(error));
      exitCode = 1;
    }
  }
  if (lifecycle.failure !== undefined) {
    reporter.error(lifecycle.failure);
    exitCode = 1;
  }
  await lifecycle.shutdown(reporter);
  uninstall();
  reporter.info('Stopped.');
  return exitCode;
}

async function start(config: UpConfig, paths: RelayPaths, lockFile: UpLockFile, lifecycle: Lifecycle, reporter: Reporter): Promise<void> {
  const isRoot = process.getuid?.() === 0;
  for (const service of SERVICE_NAMES) {
    if (!existsSync(join(serviceDir(paths, service), 'src', 'main.ts'))) {
      throw new CliError(`services/${service}/src/main.ts is missing; this checkout cannot run the ${service} service`);
    }
  }
  const natsBinary =
    config.natsUrl === undefined
      ? await findOrInstallNatsServer({ env: config.inheritedEnv, isRoot, reporter, signal: lifecycle.signal })
      : undefined;
  lifecycle.signal.throwIfAborted();

  const ports = await choosePorts(config);
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
  if (natsBinary !== undefined) {
    reporter.info(`Starting NATS (${natsBinary}) on 127.0.0.1:${ports.nats}`);
    const nats = await startNatsServer({ binary: natsBinary, port: ports.nats, storeDir: paths.natsStoreDir, reporter });
    lockFile.addChild('nats-server', nats.process.pid);
    watchExit(nats.process, 'nats-server', lifecycle);
    lifecycle.add({ name: 'NATS', stop: async () => void (await nats.process.stop(SERVICE_STOP_GRACE_MS)), kill: () => nats.process.kill() });
    natsUrl = nats.url;
  }
  if (natsUrl === undefined) throw new Error('unreachable: NATS has neither a URL nor a binary');

  reporter.info('Starting the services');
  const clockEpochMs = config.clockEpochMs ?? Date.now();
  const plan = {
    grpcPorts: ports.grpc,
    gatewayPort: ports.gateway,
    gatewayHost: host,
    publicUrl: config.publicUrl ?? gatewayUrl,
    natsUrl,
    databaseServerUrl,
    relayName: config.relayName,
    logLevel: config.logLevel,
    clockEpochMs,
    ...(config.clockSpec !== undefined ? { clockSpec: config.clockSpec } : {}),
  };
  const spawnService = async (name: ServiceName) => {
    const env: NodeJS.ProcessEnv = { ...config.inheritedEnv, ...serviceEnv(name, plan) };
    if (name === 'gateway') delete env['DATABASE_URL'];
    const child = await ManagedProcess.start({
      name,
      command: process.execPath,
      args: ['--import', '@relay/telemetry/register', '--import', 'tsx', 'src/main.ts'],
      cwd: serviceDir(paths, name),
      env,
      onLine: (_stream, line) => reporter.child(name, line),
    });
    lockFile.addChild(name, child.pid);
    watchExit(child, `the ${name} service`, lifecycle);
    return child;
  };
  const backends: ManagedProcess[] = [];
  lifecycle.add({
    name: 'services',
    stop: async () => void (await Promise.all(backends.map((child) => child.stop(SERVICE_STOP_GRACE_MS)))),
    kill: () => backends.forEach((child) => child.kill()),
  });
  await Promise.all(GRPC_SERVICE_NAMES.map(async (name) => backends.push(await spawnService(name))));
  const gateway = await spawnService('gateway');
  lifecycle.add({ name: 'gateway', stop: async () => void (await gateway.stop(SERVICE_STOP_GRACE_MS)), kill: () => gateway.kill() });

  await waitUntilReady(
    [
      ...GRPC_SERVICE_NAMES.map((service) => ({
        name: service,
        where: grpcAddress(ports.grpc[service]),
        check: () => checkHealth(grpcAddress(ports.grpc[service])),
      })),
      { name: 'gateway', where: `${gatewayUrl}/readyz`, check: async () => (await fetch(`${gatewayUrl}/readyz`)).ok },
    ],
    { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250, signal: lifecycle.signal },
  );

  const terminal = await ensureTerminalSession({
    credentialsFile: paths.credentialsFile,
    gatewayUrl,
    sessionGrpcAddress: grpcAddress(ports.grpc.session),
    userName: userInfo().username,
    reporter,
  });
  lifecycle.signal.throwIfAborted();
  reporter.print(
    formatBanner({
      relayName: config.relayName,
      gatewayUrl,
      mcpUrl,
      token: terminal.token,
      sessionTitle: terminal.title,
      inspectorInstalled: existsSync(join(paths.repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector', 'package.json')),
    }),
  );
}

type Ports = { gateway: number; grpc: Record<GrpcServiceName, number>; nats: number; postgres: number };

/** The default ports where free, others where not; RELAY_PORT must be free as given. */
async function choosePorts(config: UpConfig): Promise<Ports> {
  const requests: PortRequest[] = [
    {
      name: 'gateway',
      preferred: config.relayPort ?? DEFAULT_GATEWAY_PORT,
      strict: config.relayPort !== undefined,
      source: 'RELAY_PORT',
    },
    ...GRPC_SERVICE_NAMES.map((service) => ({ name: service, preferred: DEFAULT_GRPC_PORTS[service], strict: false })),
    ...(config.natsUrl === undefined ? [{ name: 'nats', preferred: NATS_PORT, strict: false }] : []),
    ...(config.databaseUrl === undefined ? [{ name: 'postgres', preferred: EMBEDDED_POSTGRES_PORT, strict: false }] : []),
  ];
  const probes = await Promise.all(requests.map(async (request) => [request.preferred, await isPortFree(request.preferred)] as const));
  const busy = new Set(probes.filter(([, free]) => !free).map(([port]) => port));
  const assigned = assignPorts(requests, busy, await osFreePorts(sparePortsNeeded(requests, busy)));
  const port = (name: string) => assigned.get(name) ?? 0;
  return {
    gateway: port('gateway'),
    grpc: Object.fromEntries(GRPC_SERVICE_NAMES.map((service) => [service, port(service)])) as Record<GrpcServiceName, number>,
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

/**
 * Ctrl-C, SIGTERM, SIGHUP or the launcher going away: an orderly stop. A second signal kills what is
 * left at once and exits 1. Returns a function that removes the handlers.
 */
function installStopTriggers(lifecycle: Lifecycle, reporter: Reporter, hasParentChannel: boolean): () => void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      reporter.info(`${signal}: stopping (again to kill at once)`);
      lifecycle.requestStop();
      return;
    }
    reporter.warn(`${signal} again: killing everything`);
    lifecycle.kill();
    process.exit(1);
  };
  const onDisconnect = () => lifecycle.requestStop();
  const stopSignals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of stopSignals) process.on(signal, onSignal);
  if (hasParentChannel) process.on('disconnect', onDisconnect);
  return () => {
    for (const signal of stopSignals) process.off(signal, onSignal);
    process.off('disconnect', onDisconnect);
  };
}
