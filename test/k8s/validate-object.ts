// Validates rendered Kubernetes objects offline against the API's schemas, as the API server would with
// strict field validation: the kubernetes-models validators check types, formats and required fields;
// their TypeScript declarations give the field names, so an unknown (say, misspelt) field fails too.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { K8sObject } from './render-kustomization.ts';

/** Which package models an API group; everything else is Kubernetes' own. */
const MODEL_PACKAGES: Record<string, string> = { 'keda.sh': '@kubernetes-models/keda', 'cert-manager.io': '@kubernetes-models/cert-manager' };

type ModelClass = new (data: unknown) => { validate(): void };

/** `kubernetes-models/apps/v1`, `kubernetes-models/v1` (the core group), `@kubernetes-models/keda/keda.sh/v1alpha1`. */
function modelModule(apiVersion: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  const pkg = MODEL_PACKAGES[group] ?? 'kubernetes-models';
  return `${pkg}/${apiVersion}`;
}

/** The schema problems of one object (empty when valid): type and format errors, then unknown fields. */
export async function validateObject(object: K8sObject, fields: FieldChecker): Promise<string[]> {
  const where = `${object.kind}/${object.metadata?.name ?? '?'}`;
  let model: ModelClass | undefined;
  try {
    const module = (await import(modelModule(object.apiVersion))) as Record<string, unknown>;
    model = module[object.kind] as ModelClass | undefined;
  } catch {
    model = undefined;
  }
  if (model === undefined) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  const problems: string[] = [];
  try {
    new model(object).validate();
  } catch (error) {
    problems.push(`${where}: ${(error as Error).message}`);
  }
  for (const field of fields.unknownFields(object)) problems.push(`${where}: unknown field ${field}`);
  return problems;
}

/** Finds fields the API does not define, by walking an object along its kind's TypeScript declaration. */
export type FieldChecker = { unknownFields(object: K8sObject): string[] };

/**
 * Compiles one small program that names each kind's interface, once, and answers from its type checker.
 * `kinds` lists every apiVersion/kind the objects may have.
 */
export function createFieldChecker(kinds: { apiVersion: string; kind: string }[]): FieldChecker {
  const unique = [...new Map(kinds.map((k) => [`${k.apiVersion}|${k.kind}`, k])).values()];
  const here = fileURLToPath(new URL('.', import.meta.url));
  const entry = `${here}__kinds__.ts`;
  const source = unique.map((k, i) => `import type { I${k.kind} as T${i} } from '${modelModule(k.apiVersion)}';\nexport type K${i} = T${i};`).join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === entry ? source : readFile(name));
  host.fileExists = (name) => name === entry || fileExists(name);
  host.getSourceFile = (name, version, onError, create) =>
    name === entry ? ts.createSourceFile(name, source, version, true) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry)!;
  const types = new Map<string, ts.Type>();
  const aliases = file.statements.filter(ts.isTypeAliasDeclaration);
  unique.forEach((k, i) => {
    const alias = aliases.find((a) => a.name.text === `K${i}`);
    if (alias) types.set(`${k.apiVersion}|${k.kind}`, checker.getTypeAtLocation(alias.name));
  });

  function objectMembers(type: ts.Type): ts.Type[] {
    const members = type.isUnion() ? type.types : [type];
    return members.filter((member) => (member.flags & ts.TypeFlags.Object) !== 0);
  }

  function walk(value: unknown, type: ts.Type, path: string, found: string[]): void {
    if (value === null || typeof value !== 'object') return;
    const candidates = objectMembers(type);
    if (Array.isArray(value)) {
      const array = candidates.find((member) => checker.isArrayType(member));
      const element = array ? checker.getTypeArguments(array as ts.TypeReference)[0] : undefined;
      if (element) value.forEach((item, index) => walk(item, element, `${path}[${index}]`, found));
      return;
    }
    // One object shape to check against; an int-or-string or a free-form field has none.
    const shapes = candidates.filter((member) => !checker.isArrayType(member));
    if (shapes.length !== 1) return;
    const shape = shapes[0]!;
    const indexType = checker.getIndexTypeOfType(shape, ts.IndexKind.String);
    const properties = checker.getPropertiesOfType(shape);
    for (const [key, child] of Object.entries(value)) {
      const property = properties.find((p) => p.name === key);
      if (property) walk(child, checker.getTypeOfSymbol(property), `${path}.${key}`, found);
      else if (indexType) walk(child, indexType, `${path}.${key}`, found);
      else if (properties.length > 0) found.push(`${path}.${key}`.replace(/^\./, ''));
    }
  }

  return {
    unknownFields(object) {
      const type = types.get(`${object.apiVersion}|${object.kind}`);
      if (type === undefined) return [];
      const found: string[] = [];
      walk(object, type, '', found);
      return found;
    },
  };
}
