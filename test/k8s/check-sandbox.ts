// The command runner's confinement on Kubernetes (docs/adr/0031-command-runner.md): over one render, every way a
// secret, a credential, the relay's state or a wider network could reach the containers agents' commands run in, and
// every way its commands container could hold more than running each user's commands as their own uid takes
// (docs/adr/0035-a-sandbox-user-per-relay-user.md).
// Returns one readable line per violation; [] means the render passes.
import type { K8sObject } from './render-kustomization.ts';
import { startsAsRoot, workloadsOf } from './check-policies.ts';

/** The runner's pods, by their label. */
const RUNNER = { 'app.kubernetes.io/name': 'runner' };
/** The one container of the runner's pods that is not a sandbox: it terminates TLS and runs no command. */
const TLS_CONTAINER = 'tls';
/** The one caller, and the port it calls. */
const CALLER = { 'app.kubernetes.io/name': 'session' };
const RUNNER_PORT = 50056;
/** What a command may reach: the gateway's HTTP port (/mcp), DNS, and the internet on 443 outside these ranges. */
const GATEWAY = { 'app.kubernetes.io/name': 'gateway' };
const GATEWAY_PORT = 7420;
const DNS = { 'k8s-app': 'kube-dns' };
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];
/** All the commands container may add: switch to a user (SETUID, SETGID), give a folder to one (CHOWN, FOWNER), end their group (KILL). */
const COMMANDS_CAPABILITIES = ['CHOWN', 'FOWNER', 'KILL', 'SETGID', 'SETUID'];
/** The relay's own images: `relay/<name>` under any registry. */
const relayImage = (image: string | undefined) => /(^|\/)relay\/([a-z-]+)(?=[:@]|$)/.exec(image ?? '')?.[2];

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
type Peer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } };
type Rule = { to?: Peer[]; from?: Peer[]; ports?: { protocol?: string; port?: number | string; endPort?: number }[] };
type PolicySpec = { podSelector?: Selector; policyTypes?: string[]; ingress?: Rule[]; egress?: Rule[] };
type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: unknown; configMapKeyRef?: { name?: string } } };
type SecurityContext = {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
};
type Container = {
  name: string;
  image?: string;
  securityContext?: SecurityContext;
  env?: Env[];
  envFrom?: { secretRef?: { name?: string }; configMapRef?: { name?: string } }[];
  volumeMounts?: { name: string; mountPath: string }[];
};
type Volume = { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string }; secret?: { secretName?: string }; [source: string]: unknown };
type Pod = {
  securityContext?: SecurityContext;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  shareProcessNamespace?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostNetwork?: boolean;
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
};

const name = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;
const sameLabels = (a: Record<string, string> | undefined, b: Record<string, string>) =>
  a !== undefined && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => a[key] === value);

/** Whether a selector picks pods labelled `labels`; the empty selector picks every pod, expressions are not trusted to narrow. */
function picks(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined) return false;
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/** The claim the session service mounts at /workspace: the sessions' folders, the one stateful volume the runner may have. */
function workspaceClaim(objects: K8sObject[]): string | undefined {
  const session = workloadsOf(objects).find((w) => w.object.kind === 'Deployment' && w.object.metadata.name === 'session');
  const pod = session?.pod as Pod | undefined;
  const mount = pod?.containers?.flatMap((c) => c.volumeMounts ?? []).find((m) => m.mountPath === '/workspace');
  return pod?.volumes?.find((v) => v.name === mount?.name)?.persistentVolumeClaim?.claimName;
}

/** What kind of volume it is (its one source field). */
const sourceOf = (volume: Volume) => Object.keys(volume).find((key) => key !== 'name') ?? '(none)';

export function sandboxViolations(objects: K8sObject[]): string[] {
  const found: string[] = [];
  const workloads = workloadsOf(objects);
  const runners = workloads.filter((w) => picks({ matchLabels: RUNNER }, w.labels));
  if (runners.length === 0) return ["no workload labelled app.kubernetes.io/name=runner: nothing runs agents' commands apart from the relay"];
  const claim = workspaceClaim(objects);

  for (const { object, pod: podSpec, labels } of runners) {
    const pod = podSpec as Pod;
    const where = name(object);
    // A service-account token, at the pod or its ServiceAccount.
    if (pod.automountServiceAccountToken !== false) found.push(`${where}: automountServiceAccountToken is not false (a command would find the pod's token)`);
    const accountName = pod.serviceAccountName ?? 'default';
    const account = objects.find((o) => o.kind === 'ServiceAccount' && o.metadata.name === accountName);
    if (account === undefined || account['automountServiceAccountToken'] !== false) {
      found.push(`${where}: its ServiceAccount ${accountName} is not in the render with automountServiceAccountToken: false`);
    }
    // Other processes: the tls container's (its key through /proc/<pid>/root), the node's.
    if (pod.shareProcessNamespace === true) found.push(`${where}: shareProcessNamespace is true (commands would see the tls container's processes and files)`);
    for (const field of ['hostPID', 'hostIPC', 'hostNetwork'] as const) if (pod[field] === true) found.push(`${where}: ${field} is true`);

    const volumes = new Map((pod.volumes ?? []).map((volume) => [volume.name, volume]));
    const all = [...(pod.containers ?? []), ...(pod.initContainers ?? []), ...(pod.ephemeralContainers ?? [])];
    for (const container of all) {
      const at = `${where} container ${container.name}`;
      const image = relayImage(container.image);
      if (image !== 'runner') found.push(`${at}: runs ${container.image ?? '(no image)'}, not the runner's image`);
      const mounts = (container.volumeMounts ?? []).map((mount) => ({ mount, volume: volumes.get(mount.name) }));
      if (container.name === TLS_CONTAINER && (pod.containers ?? []).includes(container)) {
        // The TLS front: its own serving certificate, and nothing of the sessions'.
        for (const { mount, volume } of mounts) {
          if (volume === undefined || volume.emptyDir !== undefined) continue;
          const secretName = volume.secret?.secretName;
          const certificate = objects.find((o) => o.kind === 'Certificate' && (o['spec'] as { secretName?: string }).secretName === secretName);
          const usages = (certificate?.['spec'] as { usages?: string[] } | undefined)?.usages;
          if (secretName === undefined || certificate === undefined)
            found.push(`${at}: mounts ${mount.mountPath} from a ${sourceOf(volume)} volume, not its own certificate's Secret or an emptyDir`);
          else if (usages?.length !== 1 || usages[0] !== 'server auth')
            found.push(
              `${at}: its certificate ${name(certificate)} is not for serving only (usages ${JSON.stringify(usages)}): it could call the relay's services`,
            );
        }
        for (const variable of container.env ?? []) if (variable.valueFrom?.secretKeyRef !== undefined) found.push(`${at}: env ${variable.name} from a Secret`);
        for (const source of container.envFrom ?? []) if (source.secretRef !== undefined) found.push(`${at}: envFrom the Secret ${source.secretRef.name}`);
        found.push(...privilegeViolations(at, container, pod, false));
        continue;
      }
      found.push(...privilegeViolations(at, container, pod, startsAsRoot(object, container)));
      // A container commands run in: no Secret, no token, no state of the relay's.
      for (const { mount, volume } of mounts) {
        if (volume === undefined) continue;
        if (volume.emptyDir !== undefined) continue;
        if (volume.persistentVolumeClaim !== undefined && volume.persistentVolumeClaim.claimName === claim) continue;
        if (volume.secret !== undefined) found.push(`${at}: mounts the Secret ${volume.secret.secretName} at ${mount.mountPath}`);
        else if (volume['projected'] !== undefined) found.push(`${at}: mounts a projected volume at ${mount.mountPath} (Secrets or a service-account token)`);
        else if (volume.persistentVolumeClaim !== undefined)
          found.push(
            `${at}: mounts the claim ${volume.persistentVolumeClaim.claimName} at ${mount.mountPath}, which is not the sessions' workspace (the relay's state)`,
          );
        else found.push(`${at}: mounts a ${sourceOf(volume)} volume at ${mount.mountPath} (only emptyDirs and the sessions' workspace)`);
      }
      for (const variable of container.env ?? []) {
        if (variable.valueFrom?.secretKeyRef !== undefined) found.push(`${at}: env ${variable.name} from a Secret`);
        const map = variable.valueFrom?.configMapKeyRef?.name;
        if (map !== undefined && map !== 'runner') found.push(`${at}: env ${variable.name} from the ConfigMap ${map} (the relay's configuration)`);
      }
      for (const source of container.envFrom ?? []) {
        if (source.secretRef !== undefined) found.push(`${at}: envFrom the Secret ${source.secretRef.name}`);
        if (source.configMapRef !== undefined && source.configMapRef.name !== 'runner')
          found.push(`${at}: envFrom the ConfigMap ${source.configMapRef.name} (the relay's configuration)`);
      }
    }
    found.push(...networkViolations(objects, where, labels));
    found.push(...folderGroupViolations(objects, where, pod));
  }

  // The runner's image runs nowhere else, and nothing else shares a process namespace with the session service.
  for (const { object, pod: podSpec, labels } of workloads) {
    const pod = podSpec as Pod;
    if (!picks({ matchLabels: RUNNER }, labels)) {
      for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
        if (relayImage(container.image) === 'runner') found.push(`${name(object)} container ${container.name}: the runner's image outside the runner's pods`);
      }
    }
    if (picks({ matchLabels: CALLER }, labels)) {
      if (pod.shareProcessNamespace === true) found.push(`${name(object)}: the session service's pods share a process namespace`);
      if (pod.hostPID === true) found.push(`${name(object)}: the session service's pods share the node's process namespace`);
    }
  }
  return found;
}

/**
 * More power than a container of the runner's pod needs: the commands container (`root`) may start as root with
 * COMMANDS_CAPABILITIES and no more; any other is non-root and adds none. Neither is privileged or may escalate.
 */
function privilegeViolations(at: string, container: Container, pod: Pod, root: boolean): string[] {
  const found: string[] = [];
  const context = container.securityContext ?? {};
  if (context.privileged === true) found.push(`${at}: privileged`);
  if (context.allowPrivilegeEscalation !== false) found.push(`${at}: allowPrivilegeEscalation is not false (a setuid program would give a command root back)`);
  if (!(context.capabilities?.drop ?? []).includes('ALL')) found.push(`${at}: does not drop ALL capabilities`);
  const allowed = root ? COMMANDS_CAPABILITIES : [];
  for (const added of context.capabilities?.add ?? [])
    if (!allowed.includes(added)) found.push(`${at}: adds the capability ${added} (${root ? `only ${COMMANDS_CAPABILITIES.join(', ')}` : 'none'})`);
  if (!root && (context.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) found.push(`${at}: runAsNonRoot is not true`);
  if ((context.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== 'RuntimeDefault') found.push(`${at}: seccompProfile is not RuntimeDefault`);
  return found;
}

/**
 * The group users' folders are given to (the runner's RUNNER_SESSION_GID) must be the session service's (its pods'
 * fsGroup and runAsGroup), and the runner's pods must hold it (fsGroup) to reach those folders: another group would
 * lock the session service out of its sessions' folders, or let some other process in.
 */
function folderGroupViolations(objects: K8sObject[], where: string, pod: Pod): string[] {
  const data = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'runner')?.['data'] as Record<string, string> | undefined;
  const gid = Number(data?.['RUNNER_SESSION_GID']);
  const session = workloadsOf(objects).find((w) => w.object.kind === 'Deployment' && w.object.metadata.name === 'session')?.pod as Pod | undefined;
  const found: string[] = [];
  if (!Number.isInteger(gid) || gid <= 0) found.push(`${where}: the runner's ConfigMap sets no RUNNER_SESSION_GID (the group users' folders are given to)`);
  else {
    if (session?.securityContext?.fsGroup !== gid || session.securityContext.runAsGroup !== gid)
      found.push(`${where}: RUNNER_SESSION_GID ${gid} is not the session service's group (its pods' fsGroup and runAsGroup)`);
    if (pod.securityContext?.fsGroup !== gid) found.push(`${where}: its pods' fsGroup is not RUNNER_SESSION_GID ${gid} (it could not reach users' folders)`);
  }
  return found;
}

/** The union of what every NetworkPolicy selecting the runner's pods lets in and out, rule by rule. */
function networkViolations(objects: K8sObject[], where: string, labels: Record<string, string>): string[] {
  const found: string[] = [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => ({ object: o, spec: o['spec'] as PolicySpec }));
  const selecting = policies.filter(({ spec }) => picks(spec.podSelector ?? {}, labels));
  const types = (spec: PolicySpec) => spec.policyTypes ?? (spec.egress !== undefined ? ['Ingress', 'Egress'] : ['Ingress']);
  if (!selecting.some(({ spec }) => types(spec).includes('Egress'))) found.push(`${where}: no NetworkPolicy restricts its egress`);
  if (!selecting.some(({ spec }) => types(spec).includes('Ingress'))) found.push(`${where}: no NetworkPolicy restricts its ingress`);
  for (const { object, spec } of selecting) {
    const policy = name(object);
    for (const rule of spec.egress ?? []) {
      const why = egressRefusal(rule);
      if (why !== undefined) found.push(`${where}: ${policy} lets it out ${why}`);
    }
    for (const rule of spec.ingress ?? []) {
      const callers =
        rule.from !== undefined &&
        rule.from.length > 0 &&
        rule.from.every((peer) => peer.ipBlock === undefined && peer.namespaceSelector === undefined && sameLabels(peer.podSelector?.matchLabels, CALLER));
      const ports = onlyPorts(rule, [RUNNER_PORT]);
      if (!callers || !ports) found.push(`${where}: ${policy} lets in ${JSON.stringify(rule)} (only the session service, on ${RUNNER_PORT})`);
    }
  }
  return found;
}

/** Whether a rule names ports, all of them among `allowed` (no range). */
function onlyPorts(rule: Rule, allowed: number[]): boolean {
  return (
    rule.ports !== undefined &&
    rule.ports.length > 0 &&
    rule.ports.every((p) => typeof p.port === 'number' && p.endPort === undefined && allowed.includes(p.port))
  );
}

/** Why an egress rule reaches more than DNS, the gateway's HTTP port or the internet's 443; undefined when it does not. */
function egressRefusal(rule: Rule): string | undefined {
  const peers = rule.to ?? [];
  if (peers.length === 0) return `to every destination (${JSON.stringify(rule)})`;
  const dns = peers.every((peer) => peer.ipBlock === undefined && sameLabels(peer.podSelector?.matchLabels, DNS)) && onlyPorts(rule, [53]);
  const gateway =
    peers.every((peer) => peer.ipBlock === undefined && peer.namespaceSelector === undefined && sameLabels(peer.podSelector?.matchLabels, GATEWAY)) &&
    onlyPorts(rule, [GATEWAY_PORT]);
  const internet =
    peers.every(
      (peer) => peer.ipBlock !== undefined && PRIVATE_RANGES.every((range) => peer.ipBlock!.cidr !== range && (peer.ipBlock!.except ?? []).includes(range)),
    ) && onlyPorts(rule, [443]);
  return dns || gateway || internet
    ? undefined
    : `to ${JSON.stringify(rule)} (only DNS, the gateway's ${GATEWAY_PORT} and the internet's 443 outside ${PRIVATE_RANGES.join(', ')})`;
}
