/**
 * Ports known before a server starts on them: the cluster's tests give each node its own in
 * CLUSTER_ORIGINS (and PUBLIC_URL), which are read at start. Each port is taken from the OS and let
 * go at once; a port another process grabs in between makes that node fail to start, loudly.
 *
 * ```ts
 * const [a, b] = await freePorts(2);
 * const node = await startChild(dir, { env: { PORT: String(a), CLUSTER_ORIGINS: `http://127.0.0.1:${a},http://127.0.0.1:${b}` } });
 * ```
 */
import { createServer, type Server } from 'node:net';

export const freePorts = async (count: number): Promise<number[]> => {
  // All held at once, so the OS hands out `count` different ports.
  const servers: Server[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
};
