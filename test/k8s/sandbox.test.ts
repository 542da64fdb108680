// Where agents' commands run on Kubernetes (docs/adr/0031-command-runner.md): every overlay, rendered, keeps every
// secret, credential and the relay's state out of the command runner's containers and lets it reach only DNS, the
// gateway's /mcp and the internet's 443; and each rule of that check fails a render that breaks it.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { K8S_DIR, checkKubectl, listFolders, renderKustomization, type K8sObject } from './render-kustomization.ts';
import { policyAllows, workloadsOf } from './check-policies.ts';
import { sandboxViolations } from './check-sandbox.ts';

const renders = new Map<string, K8sObject[]>();

beforeAll(async () => {
  await checkKubectl();
  for (const overlay of await listFolders('overlays')) renders.set(overlay, await renderKustomization(join(K8S_DIR, 'overlays', overlay)));
}, 120_000);

const prod = () => structuredClone(renders.get('prod')!);
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
const podOf = (objects: K8sObject[], name: string) => (find(objects, 'Deployment', name)['spec'] as any).template.spec;
const runnerContainer = (objects: K8sObject[]) => podOf(objects, 'runner').containers.find((c: { name: string }) => c.name === 'runner');
const label = (name: string) => ({ 'app.kubernetes.io/name': name });
const runnerStart = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../../services/runner/package.json', import.meta.url)), 'utf8')) as { scripts: { start: string } }
).scripts.start;

describe('the command runner in every overlay', () => {
  it("holds no Secret, no token and none of the relay's state where commands run, and reaches only DNS, the gateway and the internet's 443", () => {
    expect([...renders.keys()]).toEqual(['dev', 'prod']);
    for (const [overlay, objects] of renders) expect(sandboxViolations(objects), overlay).toEqual([]);
  });

  it("is the session service's only way to run a command: it calls the runner, whose /workspace is the session's own claim", () => {
    for (const [overlay, objects] of renders) {
      expect((find(objects, 'ConfigMap', 'session')['data'] as Record<string, string>)['RELAY_COMMAND_RUNNER_ADDR'], overlay).toBe('runner:50056');
      expect(policyAllows(objects, label('session'), label('runner'), 50056), overlay).toBe(true);
      // Nothing else calls it, and it calls none of the relay's services, NATS or PostgreSQL.
      for (const other of ['gateway', 'scheduler', 'question', 'pairing', 'subscription'])
        expect(policyAllows(objects, label(other), label('runner'), 50056), `${overlay} ${other}`).toBe(false);
      for (const [callee, port] of [
        ['session', 50051],
        ['question', 50054],
        ['nats', 4222],
        ['postgres', 5432],
        ['otel-collector', 4317],
      ] as const) {
        expect(policyAllows(objects, label('runner'), label(callee), port), `${overlay} runner → ${callee}`).toBe(false);
      }
      expect(policyAllows(objects, label('runner'), label('gateway'), 7420), overlay).toBe(true);
      const claimOf = (name: string) => {
        const pod = podOf(objects, name);
        const mount = pod.containers.flatMap((c: any) => c.volumeMounts ?? []).find((m: any) => m.mountPath === '/workspace');
        return pod.volumes.find((v: any) => v.name === mount.name).persistentVolumeClaim?.claimName;
      };
      expect(claimOf('runner'), overlay).toBe(claimOf('session'));
      expect(claimOf('runner'), overlay).toBeDefined();
      // The runner's certificate serves only, in the tls container only.
      const tls = podOf(objects, 'runner').containers.find((c: { name: string }) => c.name === 'tls');
      expect(
        tls.volumeMounts.map((m: { mountPath: string }) => m.mountPath),
        overlay,
      ).toContain('/etc/relay/grpc-tls');
      expect((find(objects, 'Certificate', 'runner-grpc')['spec'] as { usages: string[] }).usages).toEqual(['server auth']);
      expect(workloadsOf(objects).filter((w) => w.labels['app.kubernetes.io/name'] === 'runner')).toHaveLength(1);
      // Its image is built with the services' (scripts/build-images.sh), so it runs: commands are not refused.
      expect((find(objects, 'Deployment', 'runner')['spec'] as { replicas: number }).replicas, overlay).toBeGreaterThan(0);
    }
  });

  it("starts its commands container as root with exactly the capabilities a switch to each user's uid takes, its tls container as a non-root user with none", () => {
    for (const [overlay, objects] of renders) {
      const containers = podOf(objects, 'runner').containers as {
        name: string;
        securityContext: { runAsUser?: number; runAsNonRoot?: boolean; capabilities: { drop: string[]; add?: string[] } };
      }[];
      const commands = containers.find((c) => c.name === 'runner')!.securityContext;
      expect(commands, overlay).toMatchObject({
        runAsUser: 0,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'], add: ['CHOWN', 'FOWNER', 'KILL', 'SETGID', 'SETUID'] },
      });
      const tls = containers.find((c) => c.name === 'tls')!.securityContext;
      expect(tls, overlay).toMatchObject({ runAsUser: 1000, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
      expect(tls.capabilities.add, overlay).toBeUndefined();
    }
  });

  it('runs the runner image in both containers, each in its role, and only the tls one holds the certificate variables', () => {
    for (const [overlay, objects] of renders) {
      const containers = podOf(objects, 'runner').containers as { name: string; image: string; env?: { name: string; value: string }[] }[];
      const role = (name: string) => containers.find((c) => c.name === name)?.env?.find((e) => e.name === 'RUNNER_ROLE')?.value;
      expect([role('runner'), role('tls')], overlay).toEqual(['commands', 'tls']);
      for (const container of containers) expect(container.image, overlay).toMatch(/relay\/runner\b/);
      const tlsVariables = (name: string) => (containers.find((c) => c.name === name)?.env ?? []).map((e) => e.name).filter((n) => n.startsWith('GRPC_TLS_'));
      expect(tlsVariables('runner'), overlay).toEqual([]);
      expect(tlsVariables('tls').sort(), overlay).toEqual(['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY']);
      // Where commands run, a shell is PID 1 (it reaps the orphans a command's killed group leaves) and starts the
      // image's own command, services/runner's npm start.
      const command = (containers.find((c) => c.name === 'runner') as { command?: string[] }).command ?? [];
      expect(command.slice(0, 2), overlay).toEqual(['/bin/sh', '-c']);
      expect(command[2], overlay).toContain(`${runnerStart} & pid=$!`);
      expect(command[2], overlay).toMatch(/trap 'kill -TERM \$pid' TERM/);
    }
  });
});

describe('the check fails a render that breaks a rule', () => {
  it('a Secret mounted, or a projected volume, where commands run', () => {
    const objects = prod();
    runnerContainer(objects).volumeMounts.push({ name: 'grpc-tls', mountPath: '/etc/relay/grpc-tls' });
    podOf(objects, 'runner').volumes.push({ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } });
    runnerContainer(objects).volumeMounts.push({ name: 'token', mountPath: '/var/run/secrets/tokens' });
    expect(sandboxViolations(objects)).toEqual([
      'Deployment/runner container runner: mounts the Secret runner-grpc-tls at /etc/relay/grpc-tls',
      'Deployment/runner container runner: mounts a projected volume at /var/run/secrets/tokens (Secrets or a service-account token)',
    ]);
  });

  it("env or envFrom from a Secret, or the relay's configuration", () => {
    const objects = prod();
    runnerContainer(objects).env.push({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'session-database', key: 'DATABASE_URL' } } });
    runnerContainer(objects).envFrom.push({ secretRef: { name: 'session-providers', optional: true } }, { configMapRef: { name: 'relay-common' } });
    expect(sandboxViolations(objects)).toEqual([
      'Deployment/runner container runner: env DATABASE_URL from a Secret',
      'Deployment/runner container runner: envFrom the Secret session-providers',
      "Deployment/runner container runner: envFrom the ConfigMap relay-common (the relay's configuration)",
    ]);
  });

  it('a service-account token, at the pod or at its ServiceAccount', () => {
    const objects = prod();
    delete podOf(objects, 'runner').automountServiceAccountToken;
    find(objects, 'ServiceAccount', 'runner')['automountServiceAccountToken'] = true;
    expect(sandboxViolations(objects)).toEqual([
      "Deployment/runner: automountServiceAccountToken is not false (a command would find the pod's token)",
      'Deployment/runner: its ServiceAccount runner is not in the render with automountServiceAccountToken: false',
    ]);
    const other = prod();
    podOf(other, 'runner').serviceAccountName = 'session-like';
    expect(sandboxViolations(other)).toEqual([
      'Deployment/runner: its ServiceAccount session-like is not in the render with automountServiceAccountToken: false',
    ]);
  });

  it("the relay's state: a claim other than the sessions' workspace, a host folder", () => {
    const objects = prod();
    podOf(objects, 'runner').volumes.push(
      { name: 'nats-data', persistentVolumeClaim: { claimName: 'data-nats-0' } },
      { name: 'host', hostPath: { path: '/var/lib' } },
    );
    runnerContainer(objects).volumeMounts.push({ name: 'nats-data', mountPath: '/data' }, { name: 'host', mountPath: '/host' });
    expect(sandboxViolations(objects)).toEqual([
      "Deployment/runner container runner: mounts the claim data-nats-0 at /data, which is not the sessions' workspace (the relay's state)",
      "Deployment/runner container runner: mounts a hostPath volume at /host (only emptyDirs and the sessions' workspace)",
    ]);
  });

  it("egress wider than DNS, the gateway's HTTP port and the internet's 443", () => {
    const objects = prod();
    const egress = (find(objects, 'NetworkPolicy', 'runner')['spec'] as any).egress;
    egress[1].to[0].ipBlock.except = egress[1].to[0].ipBlock.except.filter((range: string) => range !== '169.254.0.0/16');
    egress.push({ to: [{ podSelector: { matchLabels: label('nats') } }], ports: [{ protocol: 'TCP', port: 4222 }] });
    egress.push({ to: [{ podSelector: { matchLabels: label('gateway') } }] });
    expect(sandboxViolations(objects)).toEqual([
      expect.stringMatching(
        /^Deployment\/runner: NetworkPolicy\/runner lets it out to .*"except":\["10\.0\.0\.0\/8","172\.16\.0\.0\/12","192\.168\.0\.0\/16","100\.64\.0\.0\/10","127\.0\.0\.0\/8"\]/,
      ),
      expect.stringMatching(/^Deployment\/runner: NetworkPolicy\/runner lets it out to .*"nats".*4222/),
      expect.stringMatching(
        /^Deployment\/runner: NetworkPolicy\/runner lets it out to \{"to":\[\{"podSelector":\{"matchLabels":\{"app.kubernetes.io\/name":"gateway"\}\}\}\]\}/,
      ),
    ]);
    // A namespace-wide allow reaches the runner too.
    const wide = prod();
    wide.push({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'allow-all-out' },
      spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
    });
    expect(sandboxViolations(wide)).toEqual(['Deployment/runner: NetworkPolicy/allow-all-out lets it out to every destination ({})']);
    // No policy restricting it at all.
    const open = prod().filter((o) => o.kind !== 'NetworkPolicy');
    expect(sandboxViolations(open)).toEqual([
      'Deployment/runner: no NetworkPolicy restricts its egress',
      'Deployment/runner: no NetworkPolicy restricts its ingress',
    ]);
  });

  it("ingress from anything but the session service on the runner's port", () => {
    const objects = prod();
    (find(objects, 'NetworkPolicy', 'runner')['spec'] as any).ingress.push({
      from: [{ podSelector: { matchLabels: label('gateway') } }],
      ports: [{ protocol: 'TCP', port: 50056 }],
    });
    expect(sandboxViolations(objects)).toEqual([
      expect.stringMatching(/^Deployment\/runner: NetworkPolicy\/runner lets in .*"gateway".*\(only the session service, on 50056\)$/),
    ]);
  });

  it("shared process namespaces: the runner's pod, the session service's, the runner as a sidecar of the session", () => {
    const objects = prod();
    podOf(objects, 'runner').shareProcessNamespace = true;
    podOf(objects, 'session').shareProcessNamespace = true;
    podOf(objects, 'session').containers.push({ ...runnerContainer(objects), name: 'commands' });
    expect(sandboxViolations(objects)).toEqual([
      "Deployment/runner: shareProcessNamespace is true (commands would see the tls container's processes and files)",
      "Deployment/session container commands: the runner's image outside the runner's pods",
      "Deployment/session: the session service's pods share a process namespace",
    ]);
  });

  it('a runner certificate that could be a client, or the tls container with the workspace', () => {
    const objects = prod();
    (find(objects, 'Certificate', 'runner-grpc')['spec'] as { usages: string[] }).usages = ['server auth', 'client auth'];
    podOf(objects, 'runner')
      .containers.find((c: { name: string }) => c.name === 'tls')
      .volumeMounts.push({ name: 'workspace', mountPath: '/workspace' });
    expect(sandboxViolations(objects)).toEqual([
      'Deployment/runner container tls: its certificate Certificate/runner-grpc is not for serving only (usages ["server auth","client auth"]): it could call the relay\'s services',
      "Deployment/runner container tls: mounts /workspace from a persistentVolumeClaim volume, not its own certificate's Secret or an emptyDir",
    ]);
  });

  it("more power where commands run than running each user's commands as their own uid takes; any in the tls container", () => {
    const objects = prod();
    const context = runnerContainer(objects).securityContext;
    context.capabilities.add.push('DAC_OVERRIDE', 'SYS_ADMIN');
    context.allowPrivilegeEscalation = true;
    context.privileged = true;
    const tls = podOf(objects, 'runner').containers.find((c: { name: string }) => c.name === 'tls');
    tls.securityContext.runAsNonRoot = false;
    tls.securityContext.capabilities.add = ['SETUID'];
    expect(sandboxViolations(objects)).toEqual([
      'Deployment/runner container tls: adds the capability SETUID (none)',
      'Deployment/runner container tls: runAsNonRoot is not true',
      'Deployment/runner container runner: privileged',
      'Deployment/runner container runner: allowPrivilegeEscalation is not false (a setuid program would give a command root back)',
      'Deployment/runner container runner: adds the capability DAC_OVERRIDE (only CHOWN, FOWNER, KILL, SETGID, SETUID)',
      'Deployment/runner container runner: adds the capability SYS_ADMIN (only CHOWN, FOWNER, KILL, SETGID, SETUID)',
    ]);
  });

  it("users' folders given to a group that is not the session service's, or a runner pod without it", () => {
    const objects = prod();
    (find(objects, 'ConfigMap', 'runner')['data'] as Record<string, string>)['RUNNER_SESSION_GID'] = '0';
    expect(sandboxViolations(objects)).toEqual([
      "Deployment/runner: the runner's ConfigMap sets no RUNNER_SESSION_GID (the group users' folders are given to)",
    ]);
    const other = prod();
    (find(other, 'ConfigMap', 'runner')['data'] as Record<string, string>)['RUNNER_SESSION_GID'] = '2000';
    expect(sandboxViolations(other)).toEqual([
      "Deployment/runner: RUNNER_SESSION_GID 2000 is not the session service's group (its pods' fsGroup and runAsGroup)",
      "Deployment/runner: its pods' fsGroup is not RUNNER_SESSION_GID 2000 (it could not reach users' folders)",
    ]);
  });

  it('no runner at all', () => {
    expect(sandboxViolations(prod().filter((o) => o.metadata.name !== 'runner'))).toEqual([
      "no workload labelled app.kubernetes.io/name=runner: nothing runs agents' commands apart from the relay",
    ]);
  });
});

describe('a broken file in a copy of k8s/', () => {
  it("fails the prod render's check: the session's provider Secret given to the runner in base/runner/deployment.yaml", async () => {
    const copy = await mkdtemp(join(tmpdir(), 'relay-k8s-sandbox-'));
    try {
      await cp(K8S_DIR, copy, { recursive: true });
      const file = join(copy, 'base/runner/deployment.yaml');
      const text = await readFile(file, 'utf8');
      const broken = text.replace(
        '            - configMapRef:\n                name: runner\n          env:\n            - name: RUNNER_ROLE\n              value: commands',
        '            - configMapRef:\n                name: runner\n            - secretRef:\n                name: session-providers\n          env:\n            - name: RUNNER_ROLE\n              value: commands',
      );
      expect(broken).not.toBe(text);
      await writeFile(file, broken);
      expect(sandboxViolations(await renderKustomization(join(copy, 'overlays/prod')))).toEqual([
        'Deployment/runner container runner: envFrom the Secret session-providers',
      ]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
