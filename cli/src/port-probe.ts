import { createServer, type Server } from 'node:net';

/** True when nothing listens on `port` on any IPv4 address (we try to bind 0.0.0.0 and let go at once). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** `count` distinct ports the OS considers free right now (all held open together, then released). */
export async function osFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: 0, host: '0.0.0.0', exclusive: true }, () => resolve());
      });
    }
    return servers.map((server) => {
      const address = server.address();
      return typeof address === 'object' && address !== null ? address.port : 0;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}
