import { spawn } from 'node:child_process';

/** A service's prebuilt `dist/main.js` running as a real child process, started as in production. */
export interface ServiceProcess {
  /** The last 20,000 characters it wrote to stdout and stderr. */
  output(): string;
  /** SIGTERM, then its exit code once it has exited (0 after a clean shutdown). */
  terminate(): Promise<number | null>;
  /** SIGKILL when it still runs; for afterAll. */
  kill(): void;
}

export interface ServiceProcessOptions {
  /** The service's folder (its `dist/main.js`, made by `npm run build`, runs there). */
  serviceDir: string;
  /** Its whole environment besides PATH: nothing of the test's own leaks in. */
  env: Record<string, string>;
  /** Answers true once the service serves (e.g. its gRPC health check). */
  ready: () => Promise<boolean>;
  timeoutMs?: number;
}

/** Starts the service and resolves once `ready` answers true; rejects with its output when it exits or times out first. */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--enable-source-maps', '--import', './dist/register.js', 'dist/main.js'], {
    cwd: options.serviceDir,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const running = () => child.exitCode === null && child.signalCode === null;
  const service: ServiceProcess = {
    output: () => output,
    terminate: () => {
      if (!running()) return Promise.resolve(child.exitCode);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
    kill: () => {
      if (running()) child.kill('SIGKILL');
    },
  };

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (!running()) throw new Error(`the service exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (await options.ready().catch(() => false)) return service;
    if (Date.now() > deadline) {
      service.kill();
      throw new Error(`the service was not ready within ${options.timeoutMs ?? 30_000} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
