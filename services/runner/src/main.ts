/**
 * The command runner process (docs/adr/0031-command-runner.md): the only place its parts are wired together. One
 * image, two roles, one container each: `commands` serves RunnerService on the socket and runs the commands;
 * `tls` takes the session service's mutual-TLS calls and passes them on to the socket.
 */
import { realpath, rm } from 'node:fs/promises';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ConfigError } from '@relay/config';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '@relay/proto/grpc/health/v1/health';
import { RunnerServiceService } from '@relay/proto/relay/runner/v1/runner_service';
import { HealthStatuses, MAX_MESSAGE_BYTES, runnerTlsAuth, serviceName, startGrpcServer } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { loadConfig, type Config } from './config.ts';
import { runnerGrpc } from './adapters/grpc/runner-grpc.ts';
import { killAllGroups, processGroups } from './adapters/process/process-groups.ts';
import { forwardToSocket } from './adapters/tls/forward-to-socket.ts';

const logger = createLogger({ name: 'runner' });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  logger.fatal({ problems: error.problems }, error.message);
  process.exit(1);
}
logger.level = config.LOG_LEVEL;

try {
  if (config.RUNNER_ROLE === 'commands') await serveCommands(config);
  else await serveTls(config);
} catch (error) {
  logger.fatal({ err: error }, 'runner failed to start');
  killAllGroups();
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}

async function serveCommands(config: Config): Promise<void> {
  const realWorkspace = await realpath(config.RUNNER_WORKSPACE);
  const limits = { 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES };
  const server = new Server(limits);
  server.addService(RunnerServiceService, runnerGrpc({ realWorkspace, ports: processGroups, logger }));
  // A socket a restarted container left in the shared folder would refuse the bind.
  await rm(config.RUNNER_SOCKET, { force: true });
  await bind(server, `unix:${config.RUNNER_SOCKET}`);
  const health = new HealthStatuses(['', serviceName(RunnerServiceService)], ServingStatus.SERVING);
  const healthServer = new Server();
  health.addTo(healthServer);
  const healthPort = await bind(healthServer, `${config.RUNNER_HOST}:${config.RUNNER_HEALTH_PORT}`);
  logger.info({ socket: config.RUNNER_SOCKET, workspace: realWorkspace, healthPort }, 'runner serving commands');

  onShutdownSignal(logger, async () => {
    // A command's end is its call's end: the commands running here end now, and their calls with them.
    health.setAll(ServingStatus.NOT_SERVING);
    health.endWatches();
    killAllGroups();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    healthServer.forceShutdown();
    await shutdownTelemetry();
  });
}

async function serveTls(config: Config): Promise<void> {
  const forwarder = forwardToSocket(config.RUNNER_SOCKET, logger);
  const server = await startGrpcServer({
    port: config.RUNNER_PORT,
    host: config.RUNNER_HOST,
    auth: runnerTlsAuth({ ca: config.GRPC_TLS_CA!, cert: config.GRPC_TLS_CERT!, key: config.GRPC_TLS_KEY! }),
    // The same caller check as every relay service's: a client certificate from the relay's CA that names `session`.
    services: [{ definition: RunnerServiceService, callers: { runCommand: ['session'] }, implementation: forwarder.implementation }],
    logger,
  });
  logger.info({ port: server.port, socket: config.RUNNER_SOCKET }, 'runner tls side passing session calls on');

  onShutdownSignal(logger, async () => {
    await server.shutdown();
    forwarder.close();
    await shutdownTelemetry();
  });
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
}
