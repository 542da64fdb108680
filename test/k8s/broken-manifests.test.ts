// The checks fail a broken manifest: hand-made broken objects, and a copy of k8s/ with a broken file,
// rendered like the real one.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { K8S_DIR, checkKubectl, renderKustomization, type K8sObject } from './render-kustomization.ts';
import { createFieldChecker, validateObject, type FieldChecker } from './validate-object.ts';
import {
  containerViolations,
  imageViolations,
  natsTlsViolations,
  networkPolicyViolations,
  networkPortViolations,
  secretViolations,
  serviceViolations,
} from './check-policies.ts';

/** A Deployment that passes every check; each test breaks one thing in a copy. */
function goodDeployment(): K8sObject {
  const security = {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'session' },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': 'session' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'session' } },
        spec: {
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'session',
              image: 'relay/session:dev',
              env: [{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'session-database', key: 'DATABASE_URL' } } }],
              readinessProbe: { grpc: { port: 50051 } },
              livenessProbe: { grpc: { port: 50051 } },
              resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              securityContext: security,
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

const container = (deployment: K8sObject) => (deployment['spec'] as any).template.spec.containers[0];
const policies: K8sObject[] = [
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'default-deny' },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'session' },
    spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'session' } }, policyTypes: ['Ingress'], ingress: [{}] },
  },
];

let fields: FieldChecker;
beforeAll(() => {
  fields = createFieldChecker([
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { apiVersion: 'v1', kind: 'Service' },
    { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject' },
  ]);
});

describe('schema validation', () => {
  it('passes the good object', async () => {
    expect(await validateObject(goodDeployment(), fields)).toEqual([]);
  });

  it('fails an unknown (misspelt) field, wherever it is', async () => {
    const broken = goodDeployment();
    container(broken).readinessprobe = container(broken).readinessProbe;
    (broken['spec'] as any).template.spec.securityContext = { runAsNonroot: true };
    expect(await validateObject(broken, fields)).toEqual([
      'Deployment/session: unknown field spec.template.spec.containers[0].readinessprobe',
      'Deployment/session: unknown field spec.template.spec.securityContext.runAsNonroot',
    ]);
  });

  it('fails a wrong type or format', async () => {
    const broken = goodDeployment();
    container(broken).readinessProbe.grpc.port = 'grpc';
    container(broken).resources.limits.cpu = 'lots';
    const problems = await validateObject(broken, fields);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/readinessProbe\/grpc\/port must be integer/);
    expect(problems[0]).toMatch(/limits\/cpu must match format "quantity"/);
  });

  it('fails a KEDA ScaledObject without triggers or with an unknown field, and a kind it has no schema for', async () => {
    const scaled: K8sObject = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 's' },
      spec: { scaleTargetRef: { name: 'x' }, minReplicas: 2 },
    };
    const problems = await validateObject(scaled, fields);
    expect(problems.join('\n')).toMatch(/must have required property 'triggers'|must have required property triggers/);
    expect(problems).toContain('ScaledObject/s: unknown field spec.minReplicas');
    expect(await validateObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, fields)).toEqual([
      'Widget/w: no schema for example.com/v1 Widget',
    ]);
  });
});

describe('policies', () => {
  it('pass the good objects', () => {
    const objects = [goodDeployment(), ...policies];
    expect([
      ...containerViolations(objects),
      ...networkPolicyViolations(objects),
      ...secretViolations(objects),
      ...imageViolations(objects, { relayByDigest: false }),
    ]).toEqual([]);
  });

  it('a missing probe, limit or security setting', () => {
    const broken = goodDeployment();
    delete container(broken).livenessProbe;
    delete container(broken).resources.limits.memory;
    container(broken).securityContext.readOnlyRootFilesystem = false;
    container(broken).securityContext.capabilities = { drop: ['NET_RAW'], add: ['NET_ADMIN'] };
    delete (broken['spec'] as any).template.spec.automountServiceAccountToken;
    expect(containerViolations([broken])).toEqual([
      'Deployment/session: automountServiceAccountToken is not false',
      'Deployment/session container session: no memory limits',
      'Deployment/session container session: no livenessProbe',
      'Deployment/session container session: readOnlyRootFilesystem is not true',
      'Deployment/session container session: capabilities do not drop ALL',
      'Deployment/session container session: adds capabilities',
    ]);
  });

  it('a relay container without its /tmp emptyDir, or running as root', () => {
    const broken = goodDeployment();
    container(broken).volumeMounts = [];
    container(broken).securityContext.runAsNonRoot = false;
    expect(containerViolations([broken])).toEqual([
      'Deployment/session container session: runAsNonRoot is not true',
      'Deployment/session container session: no emptyDir mounted on /tmp',
    ]);
  });

  it('a Deployment no NetworkPolicy selects, and no default deny', () => {
    expect(networkPolicyViolations([goodDeployment(), policies[1]!])).toEqual([
      'no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)',
    ]);
    expect(networkPolicyViolations([goodDeployment(), policies[0]!])).toEqual(['Deployment/session: no NetworkPolicy selects its pods']);
  });

  it('a NetworkPolicy opening a port the pods do not listen on', () => {
    const deployment = goodDeployment();
    container(deployment).ports = [{ name: 'grpc', containerPort: 50051 }];
    const policy: K8sObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'gateway' },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } },
        egress: [{ to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'session' } } }], ports: [{ port: 50052 }] }],
      },
    };
    expect(networkPortViolations([deployment, policy])).toEqual([
      'NetworkPolicy/gateway: egress port 50052 is not a port of {"app.kubernetes.io/name":"session"}',
    ]);
    (policy['spec'] as any).egress[0].ports = [{ port: 50051 }];
    expect(networkPortViolations([deployment, policy])).toEqual([]);
  });

  it('latest or untagged images, and relay images not pinned by digest in prod', () => {
    const latest = goodDeployment();
    container(latest).image = 'nats:latest';
    const untagged = goodDeployment();
    container(untagged).image = 'registry.example.com:5000/relay/session';
    expect(imageViolations([latest], { relayByDigest: false })).toEqual(['Deployment/session container session: image nats:latest has no version (latest)']);
    expect(imageViolations([untagged], { relayByDigest: true })).toEqual([
      'Deployment/session container session: image registry.example.com:5000/relay/session has no version (latest)',
      'Deployment/session container session: image registry.example.com:5000/relay/session is not pinned by digest',
    ]);
    const tagged = goodDeployment();
    expect(imageViolations([tagged], { relayByDigest: true })).toEqual([
      'Deployment/session container session: image relay/session:dev is not pinned by digest',
    ]);
    container(tagged).image = `registry.example.com/relay/session@sha256:${'a'.repeat(64)}`;
    expect(imageViolations([tagged], { relayByDigest: true })).toEqual([]);
  });

  it('a Secret with values, a secret in a ConfigMap or inline in env', () => {
    const inline = goodDeployment();
    container(inline).env = [{ name: 'DATABASE_URL', value: 'postgresql://relay:hunter2@db/relay_session' }];
    expect(
      secretViolations([
        inline,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'session-database' }, stringData: { DATABASE_URL: 'postgresql://…' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'session' }, data: { ANTHROPIC_API_KEY: 'sk-…' } },
      ]),
    ).toEqual([
      'Secret/session-database: Secrets are created in the cluster and only referenced here',
      'ConfigMap/session: ANTHROPIC_API_KEY belongs in a Secret',
      'Deployment/session container session: DATABASE_URL has an inline value; use secretKeyRef',
    ]);
  });

  it('a Service port without a name', () => {
    const service: K8sObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'session' }, spec: { ports: [{ port: 50051 }] } };
    expect(serviceViolations([service])).toEqual(['Service/session: port 50051 has no name']);
  });
});

describe('a broken file in a copy of k8s/', () => {
  it("fails the render's checks: a probe removed and a field misspelt in base/session/deployment.yaml", async () => {
    await checkKubectl();
    const copy = await mkdtemp(join(tmpdir(), 'relay-k8s-broken-'));
    try {
      await cp(K8S_DIR, copy, { recursive: true });
      const file = join(copy, 'base/session/deployment.yaml');
      const text = await readFile(file, 'utf8');
      const broken = text.replace(/ {10}livenessProbe:\n(?: {12}.*\n)+/, '').replace('terminationGracePeriodSeconds: 30', 'terminationGracePeriodSecond: 30');
      expect(broken).not.toBe(text);
      await writeFile(file, broken);
      const objects = await renderKustomization(join(copy, 'base'));
      const session = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'session')!;
      expect(containerViolations(objects)).toEqual(['Deployment/session container session: no livenessProbe']);
      expect(await validateObject(session, fields)).toEqual(['Deployment/session: unknown field spec.template.spec.terminationGracePeriodSecond']);
      // The overlays' cert-manager component moves the probes to the health port, and refuses a probe that is gone.
      await expect(renderKustomization(join(copy, 'overlays/dev'))).rejects.toThrow(/livenessProbe/);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe('NATS without TLS in a copy of k8s/', () => {
  it("fails the prod render's check: no tls block for the clients, routes that do not verify, a service without its certificate", async () => {
    await checkKubectl();
    const copy = await mkdtemp(join(tmpdir(), 'relay-k8s-nats-'));
    try {
      await cp(K8S_DIR, copy, { recursive: true });
      expect(natsTlsViolations(await renderKustomization(join(copy, 'overlays/prod')))).toEqual([]);
      const config = join(copy, 'components/nats/configmap.yaml');
      const text = await readFile(config, 'utf8');
      const broken = text.replace(/^ {4}tls \{\n(?: {6}.*\n)+ {4}\}\n/m, '').replace(/( {6}tls \{\n(?: {8}.*\n)*? {8})verify: true/, '$1verify: false');
      expect(broken).not.toBe(text);
      await writeFile(config, broken);
      const component = join(copy, 'components/nats/kustomization.yaml');
      const patches = await readFile(component, 'utf8');
      await writeFile(component, patches.replace(/ {18}- name: NATS_TLS_CERT\n {20}value: .*\n/, ''));
      expect(natsTlsViolations(await renderKustomization(join(copy, 'overlays/prod')))).toEqual([
        'nats.conf: no tls block for its clients',
        "nats.conf: the routes' tls block does not verify their certificates (verify: true)",
        'Deployment/session container session: NATS_TLS_CERT is not set',
      ]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
