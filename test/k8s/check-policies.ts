// The house rules for rendered manifests (STYLE.md, Kubernetes). Each check takes every object of one
// render and returns its violations, one readable line each; [] means the render passes.
import type { K8sObject } from './render-kustomization.ts';

type Container = {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string }[];
};
type SecurityContext = {
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
};
type PodSpec = {
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: unknown }[];
};
type Workload = { object: K8sObject; pod: PodSpec; labels: Record<string, string>; longRunning: boolean };

const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
const SECRET_NAME = /(PASSWORD|TOKEN|SECRET|API_KEY|PRIVATE_KEY|DATABASE_URL)/i;
/** The relay's own images: `relay/<service>` under any registry. */
const RELAY_IMAGE = /(^|\/)relay\/[a-z-]+(?=[:@]|$)/;

const label = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;

/**
 * The one container of the relay's that starts as root: the command runner's `runner`, which runs each relay user's
 * commands as that user's own uid (docs/adr/0035-a-sandbox-user-per-relay-user.md). check-sandbox.ts holds it to
 * exactly the capabilities that takes; the non-root and no-capability rules here skip it and it alone.
 */
export function startsAsRoot(workload: K8sObject, container: { name: string }): boolean {
  return workload.kind === 'Deployment' && workload.metadata.name === 'runner' && container.name === 'runner';
}

/** The pod templates of Deployments, StatefulSets, DaemonSets, Jobs and CronJobs. */
export function workloadsOf(objects: K8sObject[]): Workload[] {
  const workloads: Workload[] = [];
  for (const object of objects) {
    const spec = object['spec'] as Record<string, any> | undefined;
    const template = object.kind === 'CronJob' ? spec?.['jobTemplate']?.spec?.template : spec?.['template'];
    if (!['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(object.kind) || !template) continue;
    workloads.push({ object, pod: template.spec ?? {}, labels: template.metadata?.labels ?? {}, longRunning: LONG_RUNNING.has(object.kind) });
  }
  return workloads;
}

/**
 * Every container: requests and limits for cpu and memory; readiness and liveness probes in long-running
 * workloads; non-root (startsAsRoot aside), no privilege escalation, read-only root filesystem, ALL capabilities
 * dropped and none added (startsAsRoot aside), RuntimeDefault seccomp; no service account token; the relay's own containers write to an emptyDir on /tmp.
 */
export function containerViolations(objects: K8sObject[]): string[] {
  const found: string[] = [];
  for (const { object, pod, longRunning } of workloadsOf(objects)) {
    if (pod.automountServiceAccountToken !== false) found.push(`${label(object)}: automountServiceAccountToken is not false`);
    for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
      const where = `${label(object)} container ${container.name}`;
      for (const kind of ['requests', 'limits'] as const) {
        for (const resource of ['cpu', 'memory']) {
          if (container.resources?.[kind]?.[resource] === undefined) found.push(`${where}: no ${resource} ${kind}`);
        }
      }
      const isInit = pod.initContainers?.includes(container) ?? false;
      if (longRunning && !isInit) {
        if (container.readinessProbe === undefined) found.push(`${where}: no readinessProbe`);
        if (container.livenessProbe === undefined) found.push(`${where}: no livenessProbe`);
      }
      const own = container.securityContext ?? {};
      const podLevel = pod.securityContext ?? {};
      const root = startsAsRoot(object, container);
      if (!root && (own.runAsNonRoot ?? podLevel.runAsNonRoot) !== true) found.push(`${where}: runAsNonRoot is not true`);
      if (own.allowPrivilegeEscalation !== false) found.push(`${where}: allowPrivilegeEscalation is not false`);
      if (own.readOnlyRootFilesystem !== true) found.push(`${where}: readOnlyRootFilesystem is not true`);
      if (!(own.capabilities?.drop ?? []).includes('ALL')) found.push(`${where}: capabilities do not drop ALL`);
      if (!root && (own.capabilities?.add ?? []).length > 0) found.push(`${where}: adds capabilities`);
      if ((own.seccompProfile?.type ?? podLevel.seccompProfile?.type) !== 'RuntimeDefault') {
        found.push(`${where}: seccompProfile is not RuntimeDefault`);
      }
      if (container.image !== undefined && RELAY_IMAGE.test(container.image)) {
        const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
        const volume = pod.volumes?.find((v) => v.name === tmp?.name);
        if (volume?.emptyDir === undefined) found.push(`${where}: no emptyDir mounted on /tmp`);
      }
    }
  }
  return found;
}

function selects(selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined) return false;
  const pairs = Object.entries(selector.matchLabels ?? {});
  // Only label pairs count as naming a workload; expressions and the empty selector are namespace-wide.
  return pairs.length > 0 && (selector.matchExpressions ?? []).length === 0 && pairs.every(([key, value]) => labels[key] === value);
}

/** A default-deny policy for ingress and egress, and for every workload a policy that selects it by its labels. */
export function networkPolicyViolations(objects: K8sObject[]): string[] {
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const specs = policies.map((policy) => policy['spec'] as Record<string, any>);
  const found: string[] = [];
  const denies = specs.some(
    (spec) =>
      Object.keys(spec['podSelector'] ?? {}).length === 0 &&
      ['Ingress', 'Egress'].every((type) => (spec['policyTypes'] ?? []).includes(type)) &&
      spec['ingress'] === undefined &&
      spec['egress'] === undefined,
  );
  if (!denies) found.push('no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)');
  for (const { object, labels } of workloadsOf(objects)) {
    if (!specs.some((spec) => selects(spec['podSelector'], labels))) found.push(`${label(object)}: no NetworkPolicy selects its pods`);
  }
  return found;
}

/** No `latest` or missing tags; with `relayByDigest`, the relay's own images are pinned by sha256 digest. */
export function imageViolations(objects: K8sObject[], options: { relayByDigest: boolean }): string[] {
  const found: string[] = [];
  for (const { object, pod } of workloadsOf(objects)) {
    for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
      const image = container.image ?? '';
      const where = `${label(object)} container ${container.name}: image ${image || '(none)'}`;
      const digest = /@sha256:[0-9a-f]{64}$/.test(image);
      const tag = /:([\w][\w.-]*)$/.exec(image.replace(/@.*$/, '').replace(/^[^/]*:\d+\//, 'registry/'))?.[1];
      if (!digest && (tag === undefined || tag === 'latest')) found.push(`${where} has no version (latest)`);
      if (options.relayByDigest && RELAY_IMAGE.test(image) && !digest) found.push(`${where} is not pinned by digest`);
    }
  }
  return found;
}

/** No Secret objects (their values would live in git), no secret-looking values inline in env or ConfigMaps. */
export function secretViolations(objects: K8sObject[]): string[] {
  const found: string[] = [];
  for (const object of objects) {
    if (object.kind === 'Secret') found.push(`${label(object)}: Secrets are created in the cluster and only referenced here`);
    if (object.kind === 'ConfigMap') {
      for (const key of Object.keys((object['data'] as Record<string, string> | undefined) ?? {})) {
        if (SECRET_NAME.test(key)) found.push(`${label(object)}: ${key} belongs in a Secret`);
      }
    }
  }
  for (const { object, pod } of workloadsOf(objects)) {
    for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
      for (const variable of container.env ?? []) {
        if (SECRET_NAME.test(variable.name) && variable.value !== undefined) {
          found.push(`${label(object)} container ${container.name}: ${variable.name} has an inline value; use secretKeyRef`);
        }
      }
    }
  }
  return found;
}

/** Every Service port has a name (probes, NetworkPolicies and the docs refer to them by name). */
export function serviceViolations(objects: K8sObject[]): string[] {
  return objects
    .filter((object) => object.kind === 'Service')
    .flatMap((object) =>
      (((object['spec'] as Record<string, any>)['ports'] ?? []) as { name?: string; port: number }[])
        .filter((port) => !port.name)
        .map((port) => `${label(object)}: port ${port.port} has no name`),
    );
}

type PolicyPeer = { podSelector?: { matchLabels?: Record<string, string> } };
type PolicyRule = { from?: PolicyPeer[]; to?: PolicyPeer[]; ports?: { port?: number | string }[] };

/**
 * Every port a NetworkPolicy opens towards one of the render's workloads is a port its containers listen
 * on: ingress ports on the pods a policy selects, egress ports on the pods a rule names.
 */
export function networkPortViolations(objects: K8sObject[]): string[] {
  const workloads = workloadsOf(objects);
  const portsOf = (selector: { matchLabels?: Record<string, string> } | undefined) => {
    const matched = workloads.filter((w) => selects(selector, w.labels));
    if (matched.length === 0) return undefined;
    return new Set(
      matched.flatMap((w) =>
        (w.pod.containers ?? []).flatMap((c) =>
          ((c as { ports?: { containerPort: number; name?: string }[] }).ports ?? []).flatMap((p) => [p.containerPort, p.name]),
        ),
      ),
    );
  };
  const found: string[] = [];
  for (const policy of objects.filter((object) => object.kind === 'NetworkPolicy')) {
    const spec = policy['spec'] as { podSelector?: { matchLabels?: Record<string, string> }; ingress?: PolicyRule[]; egress?: PolicyRule[] };
    const own = portsOf(spec.podSelector);
    for (const rule of spec.ingress ?? []) {
      for (const { port } of rule.ports ?? []) {
        if (own !== undefined && port !== undefined && !own.has(port))
          found.push(`${label(policy)}: ingress port ${port} is not a port of the pods it selects`);
      }
    }
    for (const rule of spec.egress ?? []) {
      for (const peer of rule.to ?? []) {
        const theirs = portsOf(peer.podSelector);
        for (const { port } of rule.ports ?? []) {
          if (theirs !== undefined && port !== undefined && !theirs.has(port)) {
            found.push(`${label(policy)}: egress port ${port} is not a port of ${JSON.stringify(peer.podSelector?.matchLabels)}`);
          }
        }
      }
    }
  }
  return found;
}

function matches(selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined || (selector.matchExpressions ?? []).length > 0) return false;
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/**
 * Whether the render's NetworkPolicies let pods labelled `from` open a TCP connection to pods labelled `to` on
 * `port`: some policy selecting `from` allows the egress and some policy selecting `to` allows the ingress.
 */
export function policyAllows(objects: K8sObject[], from: Record<string, string>, to: Record<string, string>, port: number): boolean {
  const specs = objects
    .filter((object) => object.kind === 'NetworkPolicy')
    .map((policy) => policy['spec'] as { podSelector?: { matchLabels?: Record<string, string> }; ingress?: PolicyRule[]; egress?: PolicyRule[] });
  const allows = (rules: PolicyRule[] | undefined, peers: 'to' | 'from', other: Record<string, string>) =>
    (rules ?? []).some(
      (rule) =>
        (rule[peers] === undefined || rule[peers]!.some((peer) => matches(peer.podSelector, other))) &&
        (rule.ports === undefined || rule.ports.some((p) => p.port === port)),
    );
  const egress = specs.some((spec) => matches(spec.podSelector ?? {}, from) && allows(spec.egress, 'to', to));
  const ingress = specs.some((spec) => matches(spec.podSelector ?? {}, to) && allows(spec.ingress, 'from', from));
  return egress && ingress;
}

/** The body of the first `name { … }` block in a nats-server config, or undefined. */
function natsBlock(config: string, name: string): string | undefined {
  const start = new RegExp(`^\\s*${name}\\s*\\{`, 'm').exec(config);
  if (!start) return undefined;
  let depth = 1;
  for (let index = start.index + start[0].length; index < config.length; index++) {
    if (config[index] === '{') depth++;
    if (config[index] === '}' && --depth === 0) return config.slice(start.index + start[0].length, index);
  }
  return undefined;
}

/** The Certificate whose Secret a container mounts at the folder of `file`, or why there is none. */
function certificateFor(objects: K8sObject[], pod: PodSpec, container: Container, file: string | undefined): { certificate?: K8sObject; problem?: string } {
  if (file === undefined) return { problem: 'is not set' };
  const mount = container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
  const secretName = (pod.volumes?.find((v) => v.name === mount?.name) as { secret?: { secretName?: string } } | undefined)?.secret?.secretName;
  if (secretName === undefined) return { problem: `${file} is in no Secret volume the container mounts` };
  const certificate = objects.find((o) => o.kind === 'Certificate' && (o['spec'] as { secretName?: string }).secretName === secretName);
  if (certificate === undefined) return { problem: `${file} is in the Secret ${secretName}, which no Certificate of this render issues` };
  return { certificate };
}

/**
 * NATS only over TLS, both ways: the nats-server config has a `tls` block for its clients (certificate, key,
 * CA, `verify: true`) and, with a cluster, one for its routes, its files from a Certificate's Secret the server
 * mounts, the Certificate naming the Service the clients dial; every service that is a NATS user (NATS_USER)
 * checks the server against a CA and presents its own certificate (NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY),
 * files from its own Certificate's Secret.
 */
export function natsTlsViolations(objects: K8sObject[]): string[] {
  const found: string[] = [];
  const server = workloadsOf(objects).find((w) => w.object.kind === 'StatefulSet' && w.object.metadata.name === 'nats');
  if (server === undefined) return ['no StatefulSet/nats'];
  const config =
    (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'nats-config')?.['data'] as Record<string, string> | undefined)?.['nats.conf'] ?? '';
  const cluster = natsBlock(config, 'cluster');
  const blocks: [string, string | undefined][] = [['clients', natsBlock(cluster === undefined ? config : config.replace(cluster, ''), 'tls')]];
  if (cluster !== undefined) blocks.push(['routes', natsBlock(cluster, 'tls')]);
  const container = server.pod.containers?.[0] ?? { name: 'nats' };
  for (const [side, block] of blocks) {
    if (block === undefined) {
      found.push(`nats.conf: no tls block for its ${side}`);
      continue;
    }
    if (!/^\s*verify\s*:\s*true\s*$/m.test(block)) found.push(`nats.conf: the ${side}' tls block does not verify their certificates (verify: true)`);
    for (const key of ['cert_file', 'key_file', 'ca_file']) {
      const file = new RegExp(`^\\s*${key}\\s*:\\s*"?([^"\\s]+)"?\\s*$`, 'm').exec(block)?.[1];
      const { certificate, problem } = certificateFor(objects, server.pod, container, file);
      if (problem !== undefined) found.push(`nats.conf: the ${side}' tls ${key} ${problem}`);
      else if (side === 'clients' && !((certificate!['spec'] as { dnsNames?: string[] }).dnsNames ?? []).includes('nats')) {
        found.push(`${label(certificate!)}: does not name nats, the Service the services dial`);
      }
    }
  }
  for (const { object, pod } of workloadsOf(objects)) {
    for (const client of pod.containers ?? []) {
      const env = new Map((client.env ?? []).map((entry) => [entry.name, entry.value]));
      if (!env.has('NATS_USER')) continue;
      for (const variable of ['NATS_TLS_CA', 'NATS_TLS_CERT', 'NATS_TLS_KEY']) {
        const { problem } = certificateFor(objects, pod, client, env.get(variable));
        if (problem !== undefined) found.push(`${label(object)} container ${client.name}: ${variable} ${problem}`);
      }
    }
  }
  return found;
}
