/**
 * /healthz: the process is up. /readyz: this gateway can take requests; once it starts shutting down it stops
 * listening and answers 503 on the connections still open (Fastify's return503OnClosing). The services behind it
 * do not decide it: they are reached through their own Services (only their ready replicas), and a call that finds
 * one away answers its own clear error. Were the gateway unready whenever a service is, one service down would
 * take every gateway pod out of the Ingress at once, the console and those errors with them.
 */
import type { FastifyInstance } from 'fastify';

/** Registers /healthz and /readyz on `app`. */
export function registerHealthRoutes(app: FastifyInstance): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ready' }));
}
