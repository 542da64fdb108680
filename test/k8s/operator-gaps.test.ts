// What an operator hits first, checked on every overlay as `kubectl kustomize` renders it: the namespace enforces
// Pod Security's baseline profile (audits and warns on restricted) and every pod meets restricted but the command
// runner's commands container, which meets baseline (root with five capabilities: ADR 0035); replicated workloads spread over nodes and zones; a
// draining replica is not killed by its liveness probe; NATS goes lame duck before it stops; the PodMonitor scrapes the
// Collector pods' metrics port; and docs/deploy.md's command for these tests finds them, and says how gRPC is balanced.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { K8S_DIR, checkKubectl, listFolders, renderKustomization, type K8sObject } from './render-kustomization.ts';
import { startsAsRoot, workloadsOf } from './check-policies.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The relay's own services: their readiness goes off while they drain, their liveness must not. */
const RELAY_SERVICES = ['gateway', 'session', 'subscription', 'scheduler', 'question', 'pairing'];
const PSS_LABELS = {
  'pod-security.kubernetes.io/enforce': 'baseline',
  'pod-security.kubernetes.io/audit': 'restricted',
  'pod-security.kubernetes.io/warn': 'restricted',
};
/** The capabilities the baseline profile lets a container add. */
const BASELINE_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
/** Volume types the restricted profile allows. */
const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

const renders = new Map<string, K8sObject[]>();

beforeAll(async () => {
  await checkKubectl();
  for (const overlay of await listFolders('overlays')) renders.set(overlay, await renderKustomization(join(K8S_DIR, 'overlays', overlay)));
});

const each = () => [...renders.entries()];
const named = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as any;

/**
 * What in `pod` the restricted Pod Security Standard refuses (https://kubernetes.io/docs/concepts/security/pod-security-standards/);
 * for a container `baseline` picks, what the baseline one refuses (root, and the capabilities it lets a container add).
 */
function restrictedViolations(where: string, pod: Record<string, any>, baseline: (container: { name: string }) => boolean = () => false): string[] {
  const found: string[] = [];
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[field] === true) found.push(`${where}: ${field}`);
  for (const volume of pod['volumes'] ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    if (!RESTRICTED_VOLUMES.includes(type ?? '')) found.push(`${where}: volume ${volume.name} is ${type}`);
  }
  const podContext = pod['securityContext'] ?? {};
  for (const container of [...(pod['containers'] ?? []), ...(pod['initContainers'] ?? [])]) {
    const at = `${where} container ${container.name}`;
    const context = container.securityContext ?? {};
    if (context.privileged === true) found.push(`${at}: privileged`);
    if (context.allowPrivilegeEscalation !== false) found.push(`${at}: allowPrivilegeEscalation is not false`);
    const root = baseline(container);
    if (!root && (context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) found.push(`${at}: runAsNonRoot is not true`);
    if (!root && (context.runAsUser ?? podContext.runAsUser) === 0) found.push(`${at}: runs as uid 0`);
    const seccomp = (context.seccompProfile ?? podContext.seccompProfile)?.type;
    if (!['RuntimeDefault', 'Localhost'].includes(seccomp)) found.push(`${at}: seccomp ${seccomp ?? 'unset'}`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) found.push(`${at}: capabilities not dropped (ALL)`);
    for (const added of context.capabilities?.add ?? [])
      if (!(root ? BASELINE_CAPABILITIES : ['NET_BIND_SERVICE']).includes(added)) found.push(`${at}: adds capability ${added}`);
    for (const port of container.ports ?? []) if (port.hostPort !== undefined) found.push(`${at}: hostPort ${port.hostPort}`);
  }
  return found;
}

/**
 * k8s/base/runner (ADR 0031) is being finished in parallel, by its owner: its spread goes there, and its name then
 * leaves this set.
 */
const SPREAD_LEFT_TO_ITS_OWNER = new Set(['runner']);

/** The workloads that run more than one pod: replicas above 1, or scaled by an autoscaler. */
function replicated(objects: K8sObject[]) {
  const scaled = new Set(
    objects.filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject').map((o) => (o as any).spec.scaleTargetRef.name as string),
  );
  return workloadsOf(objects).filter(({ object }) => ((object as any).spec.replicas ?? 1) > 1 || scaled.has(object.metadata.name));
}

describe('Pod Security', () => {
  it('every overlay labels its namespace to enforce the baseline profile, and to audit and warn on the restricted one', () => {
    expect(renders.size).toBeGreaterThanOrEqual(2);
    for (const [overlay, objects] of each()) {
      const namespaces = objects.filter((o) => o.kind === 'Namespace');
      expect(namespaces.length, overlay).toBe(1);
      expect(namespaces[0]!.metadata.labels, overlay).toMatchObject(PSS_LABELS);
    }
  });

  it("every pod an overlay runs meets the restricted profile, but the runner's commands container, which meets baseline", () => {
    for (const [overlay, objects] of each()) {
      const found = workloadsOf(objects).flatMap(({ object, pod }) =>
        restrictedViolations(`${overlay}: ${object.kind}/${object.metadata.name}`, pod, (container) => startsAsRoot(object, container)),
      );
      expect(found).toEqual([]);
    }
  });

  it('the check refuses what the profile refuses', () => {
    const pod = { volumes: [{ name: 'h', hostPath: { path: '/' } }], containers: [{ name: 'c', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] };
    expect(restrictedViolations('x', pod)).toEqual([
      'x: volume h is hostPath',
      'x container c: allowPrivilegeEscalation is not false',
      'x container c: runAsNonRoot is not true',
      'x container c: seccomp unset',
      'x container c: capabilities not dropped (ALL)',
      'x container c: adds capability SYS_ADMIN',
    ]);
    // A baseline container may be root and add SETUID, never SYS_ADMIN nor privilege escalation.
    const root = {
      containers: [
        {
          name: 'c',
          securityContext: {
            runAsUser: 0,
            allowPrivilegeEscalation: false,
            seccompProfile: { type: 'RuntimeDefault' },
            capabilities: { drop: ['ALL'], add: ['SETUID', 'SYS_ADMIN'] },
          },
        },
      ],
    };
    expect(restrictedViolations('x', root, () => true)).toEqual(['x container c: adds capability SYS_ADMIN']);
    expect(restrictedViolations('x', root)).toEqual([
      'x container c: runAsNonRoot is not true',
      'x container c: runs as uid 0',
      'x container c: adds capability SETUID',
      'x container c: adds capability SYS_ADMIN',
    ]);
  });
});

describe('topology spread', () => {
  it('every workload with more than one pod spreads them over nodes and zones, counting its own pods', () => {
    let checked = 0;
    for (const [overlay, objects] of each()) {
      for (const { object, pod, labels } of replicated(objects).filter(({ object }) => !SPREAD_LEFT_TO_ITS_OWNER.has(object.metadata.name))) {
        checked += 1;
        const where = `${overlay}: ${object.kind}/${object.metadata.name}`;
        const constraints = ((pod as Record<string, any>)['topologySpreadConstraints'] ?? []) as {
          topologyKey: string;
          maxSkew: number;
          labelSelector?: { matchLabels?: Record<string, string> };
        }[];
        for (const key of ['kubernetes.io/hostname', 'topology.kubernetes.io/zone']) {
          const constraint = constraints.find((c) => c.topologyKey === key);
          expect(constraint, `${where}: no spread over ${key}`).toBeDefined();
          expect(constraint!.maxSkew, where).toBe(1);
          const selector = constraint!.labelSelector?.matchLabels ?? {};
          expect(Object.keys(selector).length, `${where}: ${key} selects nothing`).toBeGreaterThan(0);
          for (const [label, value] of Object.entries(selector)) expect(labels[label], `${where}: ${key} selects ${label}=${value}, not its pods`).toBe(value);
        }
      }
    }
    // prod: gateway, session, subscription, scheduler, question, pairing, NATS and the Collector at least.
    expect(checked).toBeGreaterThanOrEqual(7);
  });
});

describe('probes of a draining replica', () => {
  it("no relay service's liveness probe reads the health its readiness turns off while draining", () => {
    for (const [overlay, objects] of each()) {
      for (const service of RELAY_SERVICES) {
        const container = named(objects, 'Deployment', service).spec.template.spec.containers.find((c: { name: string }) => c.name === service);
        const { livenessProbe: live, readinessProbe: ready } = container;
        const where = `${overlay}: ${service}`;
        if (ready.grpc !== undefined) {
          // packages/rpc: '' (readiness) goes NOT_SERVING at drain; 'liveness' only at shutdown.
          expect(live.grpc, where).toMatchObject({ port: ready.grpc.port, service: 'liveness' });
          expect(ready.grpc.service ?? '', where).toBe('');
        } else {
          // The gateway: /readyz fails once it shuts down, /healthz while the process is up.
          expect(ready.httpGet.path, where).toBe('/readyz');
          expect(live.httpGet.path, where).toBe('/healthz');
        }
      }
    }
  });
});

describe('NATS', () => {
  it('goes lame duck before it stops: the preStop signals ldm to the pid file nats.conf names, and waits within the grace', () => {
    for (const [overlay, objects] of each()) {
      const nats = named(objects, 'StatefulSet', 'nats');
      const pod = nats.spec.template.spec;
      const container = pod.containers.find((c: { name: string }) => c.name === 'nats');
      const script = (container.lifecycle?.preStop?.exec?.command ?? []).join(' ');
      const ldm = /--signal ldm=(\S+)/.exec(script);
      expect(ldm, `${overlay}: no lame-duck preStop`).not.toBeNull();
      const config = named(objects, 'ConfigMap', 'nats-config').data['nats.conf'] as string;
      expect(config, overlay).toContain(`pid_file: "${ldm![1]}"`);
      // The pid file's folder is writable (the root filesystem is read-only).
      const folder = ldm![1]!.slice(0, ldm![1]!.lastIndexOf('/'));
      const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === folder);
      expect(mount, `${overlay}: ${folder} is not mounted`).toBeDefined();
      expect(pod.volumes.find((v: { name: string }) => v.name === mount.name)?.emptyDir, overlay).toBeDefined();
      const seconds = (name: string) => Number(new RegExp(`${name}: (\\d+)s`).exec(config)?.[1]);
      const sleep = Number(/sleep (\d+)/.exec(script)?.[1]);
      expect(seconds('lame_duck_duration') + seconds('lame_duck_grace_period'), overlay).toBeLessThanOrEqual(sleep);
      expect(sleep, overlay).toBeLessThan(pod.terminationGracePeriodSeconds);
    }
  });
});

describe('k8s/monitoring/pod-monitor.yaml', () => {
  const monitor = parse(readFileSync(join(ROOT, 'k8s/monitoring/pod-monitor.yaml'), 'utf8')) as any;

  it("selects every overlay's Collector pods and scrapes a port they declare, where the Collector's metrics are", () => {
    expect(monitor).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor' });
    let selected = 0;
    for (const [overlay, objects] of each()) {
      for (const { object, labels, pod } of workloadsOf(objects)) {
        const matches = Object.entries(monitor.spec.selector.matchLabels as Record<string, string>).every(([key, value]) => labels[key] === value);
        if (!matches) continue;
        selected += 1;
        expect(object.metadata.name, overlay).toBe('otel-collector');
        const ports = ((pod as Record<string, any>)['containers'] as { ports?: { name: string; containerPort: number }[] }[]).flatMap((c) => c.ports ?? []);
        for (const endpoint of monitor.spec.podMetricsEndpoints) {
          const port = ports.find((p) => p.name === endpoint.port);
          if (port === undefined) throw new Error(`${overlay}: the Collector declares no port ${endpoint.port}`);
          // The Collector's prometheus exporter listens there (components/otel-collector/configmap.yaml).
          const collectorConfig = named(objects, 'ConfigMap', 'otel-collector-config').data;
          expect(JSON.stringify(collectorConfig), overlay).toContain(`:${port.containerPort}`);
        }
      }
    }
    expect(selected).toBe(renders.size);
  });
});

describe('docs/deploy.md', () => {
  const deploy = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');

  it('gives a command for these tests that finds them', async () => {
    const command = /Run them with `(npx vitest run [^`]+)`/.exec(deploy);
    expect(command, 'docs/deploy.md names no command for test/k8s').not.toBeNull();
    const args = command![1]!.split(/\s+/).slice(3);
    const { stdout } = await promisify(execFile)('npx', ['vitest', 'list', '--filesOnly', ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.split('\n').filter((line) => line.includes('test/k8s/'));
    expect(
      files.some((line) => line.includes('test/k8s/operator-gaps.test.ts')),
      stdout,
    ).toBe(true);
    expect(files.length).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('says gRPC calls are balanced per call over every replica, not that balancing is missing', () => {
    expect(deploy).not.toMatch(/not configured yet/);
    expect(deploy).toMatch(/headless/);
    expect(deploy).toMatch(/round_robin/);
  });
});
