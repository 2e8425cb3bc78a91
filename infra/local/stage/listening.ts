import { createServer as createNetServer, type Server } from 'node:net';
import type { Server as HttpServer } from 'node:http';

/** A port the OS just handed out on loopback, for a stand-in that cannot take port 0. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  server.unref();
  const port = await listen(server, 0, '127.0.0.1');
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Binds before anything else starts, so a taken port fails fast and clearly; the port bound. */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

export const closeServer = (server: HttpServer): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });
