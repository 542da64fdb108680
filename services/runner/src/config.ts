/**
 * The command runner's environment (k8s/base/runner/configmap.yaml): the only place it reads process.env. One image,
 * two roles: `commands` runs the commands and holds no certificate, `tls` holds the runner's certificate and runs none.
 */
import { z } from 'zod';
import { baseEnv, grpcAuthEnv, parseEnv, port } from '@relay/config';

const absolutePath = z.string().trim().startsWith('/', 'must be an absolute path, for example /workspace');
const TLS_FILES = ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY'] as const;

const schema = z
  .object({
    /** `commands` (RunnerService on the socket, health on RUNNER_HEALTH_PORT) or `tls` (mutual TLS on RUNNER_PORT, passed on to the socket). */
    RUNNER_ROLE: z.enum(['commands', 'tls'], { error: 'must be commands or tls' }),
    /** The unix socket the commands side serves on and the tls side passes each call on to. */
    RUNNER_SOCKET: absolutePath.default('/run/runner/runner.sock'),
    /** The sessions' folders: a command's folder must really lie under it. */
    RUNNER_WORKSPACE: absolutePath.default('/workspace'),
    /**
     * The session service's group (its pods' runAsGroup and fsGroup): a folder a user's commands take is theirs and
     * this group's (2770), so the session service keeps reaching it and no other user's commands do.
     */
    RUNNER_SESSION_GID: z.coerce.number().int().min(1).default(1000),
    /** Where each sandbox user's private home (and TMPDIR) is made, 0700 theirs: on the pod's own /tmp. */
    RUNNER_HOMES: absolutePath.default('/tmp/homes'),
    /** The address the ports bind: every interface in a pod (the tls port takes only mutual TLS). */
    RUNNER_HOST: z.string().trim().min(1).default('0.0.0.0'),
    /** The commands side's grpc.health.v1, plaintext, for the kubelet's probes (nothing else answers there). */
    RUNNER_HEALTH_PORT: port(50060),
    /** The tls side's mutual-TLS port, the session service its only caller. */
    RUNNER_PORT: port(50056),
    GRPC_TLS_CA: grpcAuthEnv.GRPC_TLS_CA,
    GRPC_TLS_CERT: grpcAuthEnv.GRPC_TLS_CERT,
    GRPC_TLS_KEY: grpcAuthEnv.GRPC_TLS_KEY,
    LOG_LEVEL: baseEnv.LOG_LEVEL,
    RELAY_CLOCK: baseEnv.RELAY_CLOCK,
    RELAY_CLOCK_EPOCH: baseEnv.RELAY_CLOCK_EPOCH,
    RELAY_CLOCK_CONTROL: baseEnv.RELAY_CLOCK_CONTROL,
  })
  .superRefine((config, context) => {
    for (const name of TLS_FILES) {
      // The tls side serves only with its certificate; the side where commands run must never be handed one.
      if (config.RUNNER_ROLE === 'tls' && config[name] === undefined) {
        context.addIssue({ code: 'custom', path: [name], message: 'required with RUNNER_ROLE=tls: the runner serves only over mutual TLS' });
      }
      if (config.RUNNER_ROLE === 'commands' && config[name] !== undefined) {
        context.addIssue({ code: 'custom', path: [name], message: 'must not be set with RUNNER_ROLE=commands: the commands run where no certificate is' });
      }
    }
  });

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
