/**
 * The command runner process (docs/adr/0031-command-runner.md, docs/adr/0035-a-sandbox-user-per-relay-user.md): the
 * only place its parts are wired together, opened and stopped as every relay process (@relay/service: config,
 * logger, stop on SIGTERM, telemetry last). One image, two roles, one container each: `commands` serves RunnerService
 * on the socket and runs each command as its user's sandbox user; `tls` takes the session service's mutual-TLS calls
 * and passes them on to the socket.
 */
import { chmod, mkdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '@relay/proto/grpc/health/v1/health';
import { RunnerServiceService } from '@relay/proto/relay/runner/v1/runner_service';
import { HealthStatuses, MAX_MESSAGE_BYTES, runnerTlsAuth, serviceName, startGrpcServer } from '@relay/rpc';
// Only the opening and stopping every process shares: the runner holds no database, bus or outbox.
import { openService, stopOnSignal } from '@relay/service/open';
import type { Logger } from '@relay/telemetry';
import { loadConfig, type Config } from './config.ts';
import { runnerGrpc } from './adapters/grpc/runner-grpc.ts';
import { killAllGroups, processGroups } from './adapters/process/process-groups.ts';
import { forwardToSocket } from './adapters/tls/forward-to-socket.ts';

/** What a command makes is its own and the session service's group's, never anyone else's (files 0660, folders 0770). */
const COMMAND_UMASK = 0o007;

const { config, logger } = openService('runner', loadConfig);

try {
  if (config.RUNNER_ROLE === 'commands') await serveCommands(config, logger);
  else await serveTls(config, logger);
} catch (error) {
  logger.fatal({ err: error }, 'runner failed to start');
  killAllGroups();
  process.exit(1);
}

async function serveCommands(config: Config, logger: Logger): Promise<void> {
  // Each command runs as its user's own OS user: only root (with SETUID, SETGID, CHOWN, FOWNER and KILL) can start it
  // so, and a runner that could not would run every user's commands as one.
  if (process.getuid?.() !== 0)
    throw new Error("the commands side must start as root (capabilities SETUID, SETGID, CHOWN, FOWNER, KILL) to run each user's commands as their own user");
  process.umask(COMMAND_UMASK);
  // The pod's /tmp (an emptyDir, 0777): sticky, so no user's command may remove or replace another's files there.
  await chmod(tmpdir(), 0o1777);
  const realWorkspace = await realpath(config.RUNNER_WORKSPACE);
  // The users' homes: each 0700 its own; the folder above them lets a user through to theirs but not list the others.
  await mkdir(config.RUNNER_HOMES, { recursive: true });
  await chmod(config.RUNNER_HOMES, 0o711);
  const ports = processGroups({ sessionGid: config.RUNNER_SESSION_GID, homes: config.RUNNER_HOMES });
  const limits = { 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES };
  const server = new Server(limits);
  // The agents' CLIs' packages lie where Node finds this code's (the image's node_modules).
  const codeFolder = dirname(fileURLToPath(import.meta.url));
  server.addService(RunnerServiceService, runnerGrpc({ realWorkspace, codeFolder, ports, logger }));
  // A socket a restarted container left in the shared folder would refuse the bind.
  await rm(config.RUNNER_SOCKET, { force: true });
  await bind(server, `unix:${config.RUNNER_SOCKET}`);
  const health = new HealthStatuses(['', serviceName(RunnerServiceService)], ServingStatus.SERVING);
  const healthServer = new Server();
  health.addTo(healthServer);
  const healthPort = await bind(healthServer, `${config.RUNNER_HOST}:${config.RUNNER_HEALTH_PORT}`);
  logger.info({ socket: config.RUNNER_SOCKET, workspace: realWorkspace, healthPort }, 'runner serving commands');

  stopOnSignal(logger, async () => {
    // A command's end is its call's end: the commands running here end now, and their calls with them.
    health.setAll(ServingStatus.NOT_SERVING);
    health.endWatches();
    killAllGroups();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    healthServer.forceShutdown();
  });
}

async function serveTls(config: Config, logger: Logger): Promise<void> {
  const forwarder = forwardToSocket(config.RUNNER_SOCKET, logger);
  const server = await startGrpcServer({
    port: config.RUNNER_PORT,
    host: config.RUNNER_HOST,
    auth: runnerTlsAuth({ ca: config.GRPC_TLS_CA!, cert: config.GRPC_TLS_CERT!, key: config.GRPC_TLS_KEY! }),
    // The same caller check as every relay service's: a client certificate from the relay's CA that names `session`.
    services: [
      {
        definition: RunnerServiceService,
        callers: { runCommand: ['session'], exec: ['session'], locateClis: ['session'] },
        implementation: forwarder.implementation,
      },
    ],
    logger,
  });
  logger.info({ port: server.port, socket: config.RUNNER_SOCKET }, 'runner tls side passing session calls on');

  stopOnSignal(logger, async () => {
    await server.shutdown();
    forwarder.close();
  });
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
}
