/**
 * /healthz: the process is up. /readyz: the services the gateway cannot answer without report
 * SERVING on their gRPC health checks.
 */
import type { FastifyInstance } from 'fastify';

/** Per service, whether it answers its health check with SERVING. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

/** Registers /healthz and /readyz on `app`. */
export function registerHealthRoutes(app: FastifyInstance, checks: ReadinessChecks): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
    );
    const services = Object.fromEntries(entries.map(([name, serving]) => [name, serving ? 'SERVING' : 'NOT_SERVING']));
    const ready = entries.every(([, serving]) => serving);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', services });
  });
}
