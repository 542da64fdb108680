// The images, checked without a Docker engine: every service's Dockerfile and the migration runner's.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseObjects } from './render-kustomization.ts';
import { dockerfileViolations, readIgnoreLines, satisfiesMajor, type ImageSpec } from './check-dockerfile.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
type PackageJson = { scripts?: Record<string, string>; dependencies?: Record<string, string>; engines?: { node?: string } };
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as PackageJson;
const rootEngines = readJson('package.json').engines?.node;

const services = readdirSync(join(ROOT, 'services')).filter((name) => readJson(`services/${name}/package.json`).scripts?.['start']);
const SERVICE_DOCKERFILE = 'docker/service/Dockerfile';

/** The service Dockerfile as the builder reads it with --build-arg SERVICE=<name>: every ${SERVICE} is the name. */
function serviceSpec(name: string): ImageSpec {
  const spec = specFor(SERVICE_DOCKERFILE, `services/${name}`);
  return { ...spec, text: spec.text.replaceAll('${SERVICE}', name) };
}

/** `text` with one `--workspace <workspace>` taken out of the RUN that runs `npm run <script>` for several. */
function withoutWorkspace(text: string, script: string, workspace: string): string {
  return text.replace(new RegExp(`^(RUN npm run ${script} [^]*?) --workspace ${workspace}(?=\\s)`, 'm'), '$1');
}

/** What a Dockerfile in the repository must satisfy, read from its workspace's package.json. */
function specFor(dockerfile: string, workspace: string, overrides: Partial<ImageSpec> = {}): ImageSpec {
  const pkg = readJson(`${workspace}/package.json`);
  const ignoreFile = join(ROOT, `${dockerfile}.dockerignore`);
  return {
    text: readFileSync(join(ROOT, dockerfile), 'utf8'),
    ignore: existsSync(ignoreFile) ? readIgnoreLines(readFileSync(ignoreFile, 'utf8')) : [],
    contextDir: ROOT,
    workspace,
    engines: [rootEngines, pkg.engines?.node].filter((range): range is string => range !== undefined),
    command: (pkg.scripts?.['start'] ?? '').split(/\s+/),
    buildScripts: [...(pkg.scripts?.['generate'] ? ['generate'] : []), ...(pkg.scripts?.['build'] ? ['build'] : [])],
    requiredPaths: [],
    ...overrides,
  };
}

/** The folders the services' migrate init containers in k8s/base pass to relay-migrate. */
function migrationJobFolders(): string[] {
  const base = join(ROOT, 'k8s/base');
  return readdirSync(base)
    .filter((name) => existsSync(join(base, name, 'deployment.yaml')))
    .flatMap((name) => parseObjects(readFileSync(join(base, name, 'deployment.yaml'), 'utf8')))
    .flatMap((deployment) => ((deployment['spec'] as any).template.spec.initContainers ?? []) as { name: string; args: string[] }[])
    .filter((container) => container.name === 'migrate')
    .map((container) => container.args[0]!);
}

describe('service images', () => {
  it('exist for the six services and the command runner', () => {
    expect(services.sort()).toEqual(['gateway', 'pairing', 'question', 'runner', 'scheduler', 'session', 'subscription']);
    // One Dockerfile for the seven (ARG SERVICE), none of their own.
    for (const name of services) expect(existsSync(join(ROOT, 'services', name, 'Dockerfile')), name).toBe(false);
    expect(existsSync(join(ROOT, SERVICE_DOCKERFILE))).toBe(true);
  });

  it('every stage of the service Dockerfile declares SERVICE before it uses it (an ARG before FROM is not seen inside a stage)', () => {
    const stages = readFileSync(join(ROOT, SERVICE_DOCKERFILE), 'utf8')
      .split(/^FROM /m)
      .slice(1);
    expect(stages.length).toBe(2);
    for (const stage of stages) {
      const lines = stage.split('\n').slice(1);
      const declared = lines.findIndex((line) => line === 'ARG SERVICE');
      const used = lines.findIndex((line) => !line.startsWith('#') && line.includes('SERVICE') && line !== 'ARG SERVICE');
      expect(declared, stage.split('\n')[0]).toBeGreaterThanOrEqual(0);
      expect(declared, stage.split('\n')[0]).toBeLessThan(used);
    }
  });

  it.each(services)(
    '%s: copies what exists, runs npm start as a non-root user on an allowed Node LTS, with its entry file and only what its bundle loads',
    (name) => {
      expect(dockerfileViolations(serviceSpec(name))).toEqual([]);
    },
  );

  it("a service Dockerfile that left out one service's step is caught (the generate step of a service that owns data)", () => {
    const spec = serviceSpec('session');
    const without = withoutWorkspace(spec.text, 'generate', 'services/session');
    expect(dockerfileViolations({ ...spec, text: without })).toEqual(['no build step runs npm run generate --workspace services/session']);
  });

  it.each(services)('%s: starts its prebuilt bundle, OpenTelemetry first, and builds it with scripts/build.mjs', (name) => {
    const pkg = readJson(`services/${name}/package.json`);
    // The hook (dist/register.js) loads before the app and shares its OpenTelemetry chunk (scripts/build.mjs).
    expect(pkg.scripts?.['start']).toBe('node --enable-source-maps --import ./dist/register.js dist/main.js');
    expect(pkg.scripts?.['build']).toBe('node ../../scripts/build.mjs');
    expect(Object.keys(pkg.dependencies ?? {})).toContain('@relay/telemetry');
  });

  it.each(services)('%s: the workspace packages it depends on are in the build context', (name) => {
    const seen = new Set<string>();
    const visit = (workspace: string) => {
      for (const dep of Object.keys(readJson(`${workspace}/package.json`).dependencies ?? {})) {
        if (!dep.startsWith('@relay/') || seen.has(dep)) continue;
        seen.add(dep);
        const folder = `packages/${dep.slice('@relay/'.length)}`;
        expect(existsSync(join(ROOT, folder, 'package.json')), `${dep} in ${folder}`).toBe(true);
        visit(folder);
      }
    };
    visit(`services/${name}`);
    expect(serviceSpec(name).text).toMatch(/^COPY packages\/ packages\/$/m);
  });
});

describe('the base image', () => {
  const dockerfiles = [SERVICE_DOCKERFILE, 'docker/migrate/Dockerfile'];

  it.each(dockerfiles)('%s: every stage is on NODE_IMAGE, which scripts/build-images.sh pins by digest', (dockerfile) => {
    const text = readFileSync(join(ROOT, dockerfile), 'utf8');
    expect(text).toMatch(/^ARG NODE_IMAGE=node:\d+-slim$/m);
    const froms = text.split('\n').filter((line) => line.startsWith('FROM '));
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\}( AS \w+)?$/);
  });

  it('scripts/build-images.sh builds every one of them and refuses a base without a digest', () => {
    const script = readFileSync(join(ROOT, 'scripts/build-images.sh'), 'utf8');
    for (const name of services) expect(script).toContain(name);
    expect(script).toContain('docker/migrate/Dockerfile');
    expect(script).toContain('--build-arg "NODE_IMAGE=$NODE_IMAGE"');
    expect(script).toMatch(/\*@sha256:\*\) ;;/);
  });
});

describe('the migration runner image', () => {
  // relay-migrate bundled by scripts/build.mjs (packages/db's build: src/bin/relay-migrate.ts → dist/relay-migrate.js).
  const command = ['node', '--enable-source-maps', 'packages/db/dist/relay-migrate.js'];

  it('copies what exists, runs relay-migrate prebuilt as a non-root user and carries every folder a migrate init container names', () => {
    const folders = migrationJobFolders();
    expect(folders.sort()).toEqual([
      '/app/migrations/pairing',
      '/app/migrations/question',
      '/app/migrations/scheduler',
      '/app/migrations/session',
      '/app/migrations/subscription',
    ]);
    expect(readJson('packages/db/package.json').scripts?.['build']).toBe('node ../../scripts/build.mjs');
    const spec = specFor('docker/migrate/Dockerfile', 'packages/db', { command, buildScripts: ['build'], requiredPaths: folders });
    expect(dockerfileViolations(spec)).toEqual([]);
    const without = spec.text.replace('COPY services/question/prisma/migrations/ /app/migrations/question/\n', '');
    expect(dockerfileViolations({ ...spec, text: without })).toEqual(['/app/migrations/question is not in the image (no COPY brings it)']);
  });
});

describe('the Dockerfile checks catch a broken image', () => {
  const good = serviceSpec('session').text;
  const spec = (text: string) => ({ ...serviceSpec('session'), text });

  it('accept the real one', () => {
    expect(dockerfileViolations(spec(good))).toEqual([]);
  });

  it('a COPY of a path that does not exist', () => {
    expect(dockerfileViolations(spec(good.replace('COPY services/ services/', 'COPY servics/ services/')))).toEqual(
      expect.arrayContaining(['COPY servics/: not in the build context', '/app/services/session/dist/main.js is not in the image (no COPY brings it)']),
    );
  });

  it('a COPY the dockerignore file excludes', () => {
    const broken = good.replace('COPY packages/ packages/', 'COPY packages/ packages/\nCOPY services/session/src/generated/ services/session/src/generated/');
    const violations = dockerfileViolations({ ...spec(broken), ignore: ['**/src/generated'], contextDir: ROOT });
    expect(violations.some((v) => /services\/session\/src\/generated\/: (excluded by the dockerignore file|not in the build context)/.test(v))).toBe(true);
  });

  it('a Node major that is not LTS or that engines refuses', () => {
    expect(dockerfileViolations(spec(good.replaceAll('node:24-slim', 'node:23-slim')))).toContain('FROM node:23-slim: Node 23 is not an LTS line');
    expect(dockerfileViolations(spec(good.replaceAll('node:24-slim', 'node:18-slim')))).toContain(
      'FROM node:18-slim: Node 18 does not satisfy engines "^20.19.0 || ^22.12.0 || >=24.0.0"',
    );
    expect(dockerfileViolations(spec(good.replaceAll('node:24-slim', 'node:24')))).toContain('FROM node:24: not a node:<major>-slim image');
  });

  it('root, or a user Kubernetes cannot check', () => {
    expect(dockerfileViolations(spec(good.replace('USER 1000:1000', 'USER 0')))).toContain('USER is root');
    expect(dockerfileViolations(spec(good.replace('USER 1000:1000', 'USER node')))).toContain(
      'USER node is not numeric (Kubernetes cannot check runAsNonRoot)',
    );
  });

  it('OpenTelemetry not imported first, dependencies not gathered from the bundle, a missing generate or build step', () => {
    const violations = dockerfileViolations(
      spec(
        good
          .replace('"--import", "./dist/register.js", ', '')
          .replace('RUN node scripts/copy-runtime-dependencies.mjs services/session/dist/meta.json /runtime', '')
          .replace(/^RUN npm run generate [^]*?\n(?=RUN )/m, '')
          .replace(/^RUN npm run build [^]*?\n(?=ARG )/m, ''),
      ),
    );
    expect(violations).toEqual(
      expect.arrayContaining([
        'runs "node --enable-source-maps dist/main.js", expected "node --enable-source-maps --import ./dist/register.js dist/main.js"',
        'no build step runs node scripts/copy-runtime-dependencies.mjs services/session/dist/meta.json',
        'no build step runs npm run generate --workspace services/session',
        'no build step runs npm run build --workspace services/session',
      ]),
    );
  });

  it('the gathered dependencies left out of the runtime stage, or a runtime stage that installs its own', () => {
    expect(dockerfileViolations(spec(good.replace('COPY --from=build /runtime/ /app/\n', '')))).toEqual([
      "the runtime stage does not copy /runtime/ (the bundle's dependencies) into /app/",
    ]);
    const installing = good.replace('USER 1000:1000', 'RUN npm ci --omit=dev --workspace services/session\nUSER 1000:1000');
    expect(dockerfileViolations(spec(installing))).toEqual(['the runtime stage installs packages itself: RUN npm ci --omit=dev --workspace services/session']);
  });

  it('reads engines ranges it understands and refuses the rest', () => {
    expect(satisfiesMajor(24, '>=20.19')).toBe(true);
    expect(satisfiesMajor(18, '>=20.19')).toBe(false);
    expect(satisfiesMajor(24, '^22 || ^24')).toBe(true);
    expect(satisfiesMajor(24, '>=20 <24')).toBe(false);
    expect(() => satisfiesMajor(24, 'lts/*')).toThrow(/unsupported engines range/);
  });
});
