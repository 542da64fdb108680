// Renders k8s/ offline with `kubectl kustomize` (set KUBECTL to use another binary) and parses the output.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const kubectl = process.env['KUBECTL'] ?? 'kubectl';

/** The repository's k8s/ folder. */
export const K8S_DIR = fileURLToPath(new URL('../../k8s/', import.meta.url));

/** A rendered object; the fields the checks read are typed, the rest is left open. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
};

/** Fails with what to do when kubectl is missing or its kustomize is older than the overlays need (v5.4.2). */
export async function checkKubectl(): Promise<string> {
  let output: string;
  try {
    output = (await run(kubectl, ['version', '--client'])).stdout;
  } catch (error) {
    throw new Error(`${kubectl} not found (${(error as Error).message}); .ci/run installs it`, { cause: error });
  }
  // The overlays' multi-document patch files need kustomize v5.4.2+ (kubectl 1.31+; docs/deploy.md, Requirements).
  const kustomize = /Kustomize Version: v(\d+)\.(\d+)\.(\d+)/.exec(output);
  const version = kustomize === null ? [0, 0, 0] : kustomize.slice(1).map(Number);
  const atLeast = (minimum: number[]) => {
    for (let i = 0; i < 3; i++) if (version[i] !== minimum[i]) return version[i]! > minimum[i]!;
    return true;
  };
  if (!atLeast([5, 4, 2])) {
    throw new Error(`${kubectl}'s kustomize is older than v5.4.2 (${output.trim()}); .ci/run installs a newer kubectl`);
  }
  return output.trim();
}

/** The folders in k8s/<kind> (overlays or components), sorted. */
export async function listFolders(kind: 'overlays' | 'components'): Promise<string[]> {
  const entries = await readdir(join(K8S_DIR, kind), { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `kubectl kustomize <dir>`, parsed. */
export async function renderKustomization(dir: string): Promise<K8sObject[]> {
  const { stdout } = await run(kubectl, ['kustomize', dir], { maxBuffer: 64 * 1024 * 1024 });
  return parseObjects(stdout);
}

/**
 * Renders k8s/<base> (a folder such as `base` or `overlays/dev`) with the named components, through a
 * kustomization written to a temporary folder.
 */
export async function renderCombination(base: string, components: string[]): Promise<K8sObject[]> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-k8s-'));
  try {
    // kustomize takes only relative paths to other folders.
    const path = (to: string) => relative(dir, join(K8S_DIR, to));
    const kustomization = [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `resources: [${JSON.stringify(path(base))}]`,
      `components: [${components.map((name) => JSON.stringify(path(`components/${name}`))).join(', ')}]`,
    ].join('\n');
    await writeFile(join(dir, 'kustomization.yaml'), `${kustomization}\n`);
    return await renderKustomization(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Parses a multi-document YAML stream; fails on a YAML error. */
export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(document.errors.map((e) => e.message).join('; '));
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}
