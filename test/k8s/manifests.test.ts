// k8s/ rendered offline by `kubectl kustomize`: every overlay, every overlay with each component it leaves
// out, and the base with every subset of the components. Each render must validate against the Kubernetes
// schemas and pass the house rules (check-policies.ts).
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { natsUsers, RELAY_BUS_ROLES, renderNatsAuthorization } from '@relay/config';
import { K8S_DIR, checkKubectl, listFolders, renderCombination, renderKustomization, type K8sObject } from './render-kustomization.ts';
import { createFieldChecker, validateObject } from './validate-object.ts';
import {
  containerViolations,
  imageViolations,
  natsTlsViolations,
  networkPolicyViolations,
  networkPortViolations,
  policyAllows,
  secretViolations,
  serviceViolations,
  workloadsOf,
} from './check-policies.ts';

type Render = { name: string; overlay?: string; components: string[]; objects: K8sObject[] };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GRPC_SERVICES = { session: 50051, subscription: 50052, scheduler: 50053, question: 50054, pairing: 50055 };
let renders: Render[] = [];
let overlays: string[] = [];
let components: string[] = [];

/** The components an overlay's kustomization lists, by folder name. */
function overlayComponents(overlay: string): string[] {
  const kustomization = parse(readFileSync(join(K8S_DIR, 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as { components?: string[] };
  return (kustomization.components ?? []).map((path) => basename(path));
}

function subsets<T>(items: T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((subset) => [...subset, item])], [[]]);
}

/** Runs the tasks with at most `limit` at once (kubectl is a process each). */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

const byName = (render: Render, kind: string, name: string) => render.objects.find((o) => o.kind === kind && o.metadata.name === name);
const overlayRenders = () => renders.filter((render) => render.overlay !== undefined);

beforeAll(async () => {
  await checkKubectl();
  overlays = await listFolders('overlays');
  components = await listFolders('components');
  const tasks: (() => Promise<Render>)[] = [];
  for (const overlay of overlays) {
    const own = overlayComponents(overlay);
    tasks.push(async () => ({ name: `overlays/${overlay}`, overlay, components: own, objects: await renderKustomization(join(K8S_DIR, 'overlays', overlay)) }));
    for (const extra of components.filter((name) => !own.includes(name))) {
      tasks.push(async () => ({
        name: `overlays/${overlay} + ${extra}`,
        overlay,
        components: [...own, extra],
        objects: await renderCombination(`overlays/${overlay}`, [extra]),
      }));
    }
  }
  for (const subset of subsets(components)) {
    tasks.push(async () => ({ name: `base + [${subset.join(', ')}]`, components: subset, objects: await renderCombination('base', subset) }));
  }
  renders = await pool(tasks, 4);
  // Some 140 kubectl renders: most of a minute on a loaded 2-core machine, far beyond the static project's 10 s default.
}, 300_000);

describe('rendering', () => {
  it('renders every overlay, every overlay with each component it leaves out, and the base with every subset of components', () => {
    expect(overlays).toEqual(['dev', 'prod']);
    expect(components).toEqual(['cert-manager', 'jaeger', 'keda', 'nats', 'network-policies', 'otel-collector', 'postgres']);
    expect(renders.length).toBe(2 ** components.length + overlays.length + overlays.reduce((n, o) => n + components.length - overlayComponents(o).length, 0));
    for (const render of renders) expect(render.objects.length, render.name).toBeGreaterThan(0);
  });

  it('validates every rendered object against the Kubernetes schemas (types, formats, required and unknown fields)', async () => {
    const fields = createFieldChecker(renders.flatMap((render) => render.objects));
    const problems = new Set<string>();
    for (const render of renders) {
      for (const object of render.objects) for (const problem of await validateObject(object, fields)) problems.add(`${render.name}: ${problem}`);
    }
    expect([...problems]).toEqual([]);
  });
});

describe('policies over every render', () => {
  it('every container has requests, limits, probes (long-running ones) and the security settings', () => {
    expect(renders.flatMap((render) => containerViolations(render.objects).map((v) => `${render.name}: ${v}`))).toEqual([]);
  });

  it('Secrets are references, never values', () => {
    expect(renders.flatMap((render) => secretViolations(render.objects).map((v) => `${render.name}: ${v}`))).toEqual([]);
  });

  it('every Service port is named', () => {
    expect(renders.flatMap((render) => serviceViolations(render.objects).map((v) => `${render.name}: ${v}`))).toEqual([]);
  });

  it('with the network-policies component, traffic is denied by default and every workload has its own allow policy', () => {
    const withPolicies = renders.filter((render) => render.components.includes('network-policies'));
    expect(withPolicies.length).toBeGreaterThan(overlays.length);
    expect(withPolicies.flatMap((render) => networkPolicyViolations(render.objects).map((v) => `${render.name}: ${v}`))).toEqual([]);
  });

  it('every port a NetworkPolicy opens to a rendered workload is one its containers listen on', () => {
    expect(renders.flatMap((render) => networkPortViolations(render.objects).map((v) => `${render.name}: ${v}`))).toEqual([]);
  });

  it('overlays pin every image to a version, never latest; prod pins the relay images by digest', () => {
    for (const render of overlayRenders()) {
      expect(imageViolations(render.objects, { relayByDigest: render.overlay === 'prod' }), render.name).toEqual([]);
    }
  });
});

describe('the overlays', () => {
  it('every overlay includes the network policies', () => {
    for (const overlay of overlays) expect(overlayComponents(overlay)).toContain('network-policies');
  });

  it('dev: one replica of each service; NATS, PostgreSQL, the Collector and Jaeger in the cluster', () => {
    const dev = renders.find((render) => render.name === 'overlays/dev')!;
    for (const { object } of workloadsOf(dev.objects).filter((w) => w.object.kind === 'Deployment' && w.labels['app.kubernetes.io/component'] === 'service')) {
      expect((object['spec'] as any).replicas ?? 1, object.metadata.name).toBe(1);
    }
    expect((byName(dev, 'HorizontalPodAutoscaler', 'subscription')?.['spec'] as any).minReplicas).toBe(1);
    for (const [kind, name] of [
      ['StatefulSet', 'nats'],
      ['StatefulSet', 'postgres'],
      ['Deployment', 'otel-collector'],
      ['Deployment', 'jaeger'],
    ]) {
      expect(byName(dev, kind!, name!), `${kind}/${name}`).toBeDefined();
    }
    expect((byName(dev, 'StatefulSet', 'nats')?.['spec'] as any).replicas).toBe(1);
  });

  it('prod: several replicas, an external PostgreSQL by Secret, a 3-node NATS cluster, KEDA scaling the subscription service, no script agent', () => {
    const prod = renders.find((render) => render.name === 'overlays/prod')!;
    for (const name of ['gateway', 'session', 'scheduler', 'question', 'pairing']) {
      expect((byName(prod, 'Deployment', name)?.['spec'] as any).replicas, name).toBeGreaterThan(1);
    }
    expect(byName(prod, 'StatefulSet', 'postgres')).toBeUndefined();
    expect((byName(prod, 'StatefulSet', 'nats')?.['spec'] as any).replicas).toBe(3);
    expect(byName(prod, 'HorizontalPodAutoscaler', 'subscription')).toBeUndefined();
    expect((byName(prod, 'ScaledObject', 'subscription')?.['spec'] as any).minReplicaCount).toBeGreaterThan(1);
    const gateway = byName(prod, 'ConfigMap', 'gateway')?.['data'] as Record<string, string>;
    expect(gateway['RELAY_PUBLIC_URL']).toMatch(/^https:\/\//);
    // Behind the ingress, the failed-try limits count per client only if the ingress's X-Forwarded-For is trusted.
    expect(gateway['RELAY_TRUSTED_PROXIES']).toBeTruthy();
    // No script agent on a team's relay (it runs its prompts' commands).
    expect((byName(prod, 'ConfigMap', 'session')?.['data'] as Record<string, string>)['RELAY_SCRIPT_PROVIDER']).toBe('off');
  });

  it('each overlay keeps as many copies of every stream (NATS_STREAM_REPLICAS) as its NATS cluster has servers', () => {
    for (const overlay of overlays) {
      const render = renders.find((candidate) => candidate.name === `overlays/${overlay}`)!;
      const common = byName(render, 'ConfigMap', 'relay-common')?.['data'] as Record<string, string>;
      const servers = (byName(render, 'StatefulSet', 'nats')?.['spec'] as any).replicas as number;
      expect(common['NATS_STREAM_REPLICAS'], overlay).toBe(String(servers));
    }
  });

  it('whenever several session replicas run, their /workspace is one ReadWriteMany claim they share', () => {
    let checked = 0;
    for (const render of overlayRenders()) {
      const spec = byName(render, 'Deployment', 'session')?.['spec'] as any;
      if (!spec || (spec.replicas ?? 1) <= 1) continue;
      const pod = spec.template.spec;
      const mount = (pod.containers[0].volumeMounts as { name: string; mountPath: string }[]).find((m) => m.mountPath === '/workspace');
      const volume = (pod.volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[]).find((v) => v.name === mount?.name);
      expect(volume?.persistentVolumeClaim, render.name).toBeDefined();
      const claim = byName(render, 'PersistentVolumeClaim', volume!.persistentVolumeClaim!.claimName)?.['spec'] as any;
      expect(claim?.accessModes, render.name).toContain('ReadWriteMany');
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('the relay services', () => {
  it('with cert-manager, every service has its own certificate (DNS names starting with its name) mounted for mutual TLS, and the gRPC services listen on all interfaces with probes on the plaintext health port', () => {
    for (const render of overlayRenders()) {
      for (const name of ['gateway', ...Object.keys(GRPC_SERVICES)]) {
        const certificate = byName(render, 'Certificate', `${name}-grpc`)?.['spec'] as any;
        expect(
          certificate.dnsNames.every((dns: string) => dns.split('.')[0] === name),
          `${render.name} ${name}`,
        ).toBe(true);
        expect(certificate.usages).toEqual(['server auth', 'client auth']);
        const pod = (byName(render, 'Deployment', name)?.['spec'] as any).template.spec;
        const container = pod.containers[0];
        const env = Object.fromEntries(container.env.filter((entry: any) => 'value' in entry).map((entry: any) => [entry.name, entry.value]));
        expect(env, `${render.name} ${name}`).toMatchObject({
          GRPC_TLS_CA: '/etc/relay/grpc-tls/ca.crt',
          GRPC_TLS_CERT: '/etc/relay/grpc-tls/tls.crt',
          GRPC_TLS_KEY: '/etc/relay/grpc-tls/tls.key',
        });
        expect(pod.volumes.find((volume: any) => volume.name === 'grpc-tls').secret.secretName).toBe(certificate.secretName);
        if (name === 'gateway') continue;
        expect(env).toMatchObject({ GRPC_HOST: '0.0.0.0', GRPC_HEALTH_PORT: '50060' });
        for (const probe of ['startupProbe', 'readinessProbe']) expect(container[probe].grpc, `${name} ${probe}`).toEqual({ port: 50060 });
        // Liveness reads the health a draining replica keeps on (operator-gaps.test.ts).
        expect(container.livenessProbe.grpc, `${name} livenessProbe`).toEqual({ port: 50060, service: 'liveness' });
      }
    }
  });

  it('with NATS in the cluster, each service on the bus is its own NATS user, and the server config lets in exactly RELAY_BUS_ROLES with their permissions', () => {
    const expected = renderNatsAuthorization(natsUsers(RELAY_BUS_ROLES, (service) => ({ env: `NATS_PASSWORD_${service.toUpperCase()}` })));
    for (const render of overlayRenders()) {
      const data = byName(render, 'ConfigMap', 'nats-config')?.['data'] as Record<string, string>;
      expect(data['authorization.conf'], render.name).toBe(expected);
      expect(data['nats.conf']).toContain('include "authorization.conf"');
      for (const role of RELAY_BUS_ROLES) {
        const env = (byName(render, 'Deployment', role.service)?.['spec'] as any).template.spec.containers[0].env;
        expect(env.find((entry: any) => entry.name === 'NATS_USER').value).toBe(role.service);
        expect(env.find((entry: any) => entry.name === 'NATS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'nats-users', key: role.service });
      }
    }
  });

  it("NATS only over TLS in every overlay: the servers' certificate from the relay's CA, clients and routes verified, each service on the bus with its own certificate", () => {
    for (const render of overlayRenders()) {
      expect(natsTlsViolations(render.objects), render.name).toEqual([]);
      expect((byName(render, 'Certificate', 'nats')?.['spec'] as any).issuerRef).toEqual({ name: 'relay-grpc-ca', kind: 'Issuer' });
    }
    expect(overlayRenders().map((render) => render.overlay)).toContain('prod');
  });

  it('the five gRPC services are probed over grpc.health.v1 on their port, the gateway over /healthz and /readyz', () => {
    const base = renders.find((render) => render.name === 'base + []')!;
    for (const [name, port] of Object.entries(GRPC_SERVICES)) {
      const container = (byName(base, 'Deployment', name)?.['spec'] as any).template.spec.containers[0];
      for (const probe of ['startupProbe', 'readinessProbe']) expect(container[probe].grpc, `${name} ${probe}`).toEqual({ port });
      expect(container.livenessProbe.grpc, `${name} livenessProbe`).toEqual({ port, service: 'liveness' });
      expect((byName(base, 'ConfigMap', name)?.['data'] as Record<string, string>)['GRPC_PORT']).toBe(String(port));
    }
    const gateway = (byName(base, 'Deployment', 'gateway')?.['spec'] as any).template.spec.containers[0];
    expect(gateway.readinessProbe.httpGet.path).toBe('/readyz');
    expect(gateway.livenessProbe.httpGet.path).toBe('/healthz');
  });

  it("the five gRPC services are headless (callers balance over the ready pods DNS names) and serve on the pod's own port", () => {
    for (const render of overlayRenders()) {
      for (const [name, port] of Object.entries(GRPC_SERVICES)) {
        const spec = byName(render, 'Service', name)?.['spec'] as any;
        expect(spec.clusterIP, `${render.name}: ${name}`).toBe('None');
        // A headless Service maps no ports: callers dial the pod at the port they were told.
        const container = (byName(render, 'Deployment', name)?.['spec'] as any).template.spec.containers[0];
        expect(
          spec.ports.map((p: { port: number }) => p.port),
          `${render.name}: ${name}`,
        ).toEqual([port]);
        expect(
          container.ports.map((p: { containerPort: number }) => p.containerPort),
          `${render.name}: ${name}`,
        ).toContain(port);
      }
    }
  });

  it("rollouts lose nothing: the session pod outlives its turns' grace, the gateway waits out its removal before SIGTERM", () => {
    for (const render of overlayRenders()) {
      const pod = (name: string) => (byName(render, 'Deployment', name)?.['spec'] as any).template.spec;
      const graceSeconds = Number((byName(render, 'ConfigMap', 'session')?.['data'] as Record<string, string>)['RELAY_SHUTDOWN_GRACE_SECONDS']);
      expect(graceSeconds, render.name).toBeGreaterThan(0);
      // The rest of the shutdown (gRPC calls 5 s, consumers, outbox, telemetry) needs time after the turns' grace.
      expect(pod('session').terminationGracePeriodSeconds - graceSeconds, render.name).toBeGreaterThanOrEqual(30);
      const gateway = pod('gateway');
      const preStop = gateway.containers[0].lifecycle.preStop.exec.command as string[];
      expect(preStop[0]).toBe('sleep');
      // After the preStop delay the gateway gives open tool calls 10 s (services/gateway/src/main.ts) and flushes.
      expect(gateway.terminationGracePeriodSeconds - Number(preStop[1]), render.name).toBeGreaterThanOrEqual(20);
    }
  });

  it("each service bounds its stream (age in relay-common, size in its own ConfigMap), and together they fit in JetStream's file store", () => {
    const bytes = (size: string) =>
      Number(/^(\d+)([KMGT]?B)?$/.exec(size)![1]) * 1024 ** ['', 'KB', 'MB', 'GB', 'TB'].indexOf(/[KMGT]?B$/.exec(size)?.[0] ?? '');
    let checked = 0;
    for (const render of overlayRenders()) {
      const common = byName(render, 'ConfigMap', 'relay-common')?.['data'] as Record<string, string>;
      expect(Number(common['NATS_STREAM_MAX_AGE_HOURS']), render.name).toBeGreaterThanOrEqual(24);
      const total = Object.keys(GRPC_SERVICES).reduce((sum, name) => {
        const own = Number((byName(render, 'ConfigMap', name)?.['data'] as Record<string, string>)['NATS_STREAM_MAX_BYTES']);
        expect(own, `${render.name}: ${name}`).toBeGreaterThan(0);
        return sum + own;
      }, 0);
      const nats = byName(render, 'ConfigMap', 'nats-config')?.['data'] as Record<string, string> | undefined;
      if (nats === undefined) continue;
      checked += 1;
      const store = /max_file_store:\s*(\S+)/.exec(Object.values(nats).join('\n'))?.[1];
      expect(store, render.name).toBeDefined();
      expect(total, `${render.name}: the streams' sizes against max_file_store ${store}`).toBeLessThanOrEqual(bytes(store!));
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('every *_GRPC_ADDR a service reads (its src/config.ts) names that service in its ConfigMap, and the network policies let the call through', () => {
    const dev = renders.find((render) => render.name === 'overlays/dev')!;
    const label = (name: string) => ({ 'app.kubernetes.io/name': name });
    let edges = 0;
    for (const caller of ['gateway', ...Object.keys(GRPC_SERVICES)]) {
      const config = readFileSync(join(ROOT, 'services', caller, 'src/config.ts'), 'utf8');
      const data = byName(dev, 'ConfigMap', caller)?.['data'] as Record<string, string>;
      for (const [variable, target] of config.matchAll(/\b([A-Z]+)_GRPC_ADDR\b/g)) {
        const callee = target!.toLowerCase();
        const port = GRPC_SERVICES[callee as keyof typeof GRPC_SERVICES];
        expect(port, `${caller}: ${variable}`).toBeDefined();
        expect(data[variable], `${caller}: ${variable}`).toBe(`${callee}:${port}`);
        expect(policyAllows(dev.objects, label(caller), label(callee), port), `${caller} → ${callee}:${port}`).toBe(true);
        edges++;
      }
    }
    expect(edges).toBeGreaterThanOrEqual(4);
    // The session's agents call back through the gateway (RELAY_GATEWAY_URL).
    expect((byName(dev, 'ConfigMap', 'session')?.['data'] as Record<string, string>)['RELAY_GATEWAY_URL']).toBe('http://gateway:7420');
    expect(policyAllows(dev.objects, label('session'), label('gateway'), 7420)).toBe(true);
    // Nothing else gets through: the subscription service may not call the session service.
    expect(policyAllows(dev.objects, label('subscription'), label('session'), 50051)).toBe(false);
  });

  it('each stateful service reads DATABASE_URL from its own Secret, and its pods migrate it first with the same one (no Job to delete at an upgrade)', () => {
    for (const render of renders) {
      expect(
        render.objects.filter((o) => o.kind === 'Job'),
        render.name,
      ).toEqual([]);
      for (const name of Object.keys(GRPC_SERVICES)) {
        const ref = { secretKeyRef: { name: `${name}-database`, key: 'DATABASE_URL' } };
        const pod = (byName(render, 'Deployment', name)?.['spec'] as any).template.spec;
        const databaseUrl = (container: { env: { name: string; valueFrom?: unknown }[] }) => container.env.find((e) => e.name === 'DATABASE_URL')?.valueFrom;
        expect(databaseUrl(pod.containers[0]), `${render.name}: ${name}`).toEqual(ref);
        const migrate = pod.initContainers.find((c: { name: string }) => c.name === 'migrate');
        expect(migrate.image, `${render.name}: ${name}`).toMatch(/relay\/migrate/);
        expect(migrate.args, `${render.name}: ${name}`).toEqual([`/app/migrations/${name}`]);
        expect(databaseUrl(migrate), `${render.name}: ${name}`).toEqual(ref);
      }
    }
  });

  it("the subscription service scales on CPU in the base and, with KEDA, on its durable consumer's pending messages", () => {
    const base = renders.find((render) => render.name === 'base + []')!;
    const hpa = byName(base, 'HorizontalPodAutoscaler', 'subscription')?.['spec'] as any;
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'subscription' });
    expect(hpa.metrics[0].resource.name).toBe('cpu');
    const keda = renders.find((render) => render.name === 'base + [keda]')!;
    expect(byName(keda, 'HorizontalPodAutoscaler', 'subscription')).toBeUndefined();
    const scaled = byName(keda, 'ScaledObject', 'subscription')?.['spec'] as any;
    expect(scaled.maxReplicaCount).toBeGreaterThan(scaled.minReplicaCount);
    // One trigger per durable consumer the service really declares, no more: its NATS role lists them, and
    // test/architecture/bus-roles.test.ts holds that list to the durables of services/subscription/src.
    const role = RELAY_BUS_ROLES.find((candidate) => candidate.service === 'subscription')!;
    const declared = role.consumers.map(({ stream, durable }) => `${stream}/${durable}`);
    const triggers = (scaled.triggers as { type: string; metadata: Record<string, string> }[]).filter((t) => t.type === 'nats-jetstream');
    expect(declared.length).toBeGreaterThan(0);
    expect(triggers.map((t) => `${t.metadata['stream']}/${t.metadata['consumer']}`).sort()).toEqual(declared.sort());
    for (const trigger of triggers) {
      expect(trigger.metadata['natsServerMonitoringEndpoint']).toBe('nats-headless.relay.svc.cluster.local:8222');
      expect(Number(trigger.metadata['lagThreshold'])).toBeGreaterThan(0);
    }
    expect(scaled.triggers.some((t: { type: string }) => t.type === 'cpu')).toBe(true);
  });
});
