import { createServer as createNetServer, type Server } from 'node:net';
import { createServer, type RequestListener } from 'node:http';

/** A port the OS just handed out on loopback, for a stand-in that cannot take port 0. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  server.unref();
  const port = await listen(server, 0, '127.0.0.1');
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Binds before anything else starts, so a taken port fails fast and clearly; the port bound. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

/**
 * HTTP on `port` (0: a free one), from before anything else starts. Node's 5 s keep-alive
 * would drop a connection a busy client has not yet read its answer on ("other side closed").
 */
export async function serveHttp(listener: RequestListener, port: number, host: string) {
  const server = createServer(listener);
  server.keepAliveTimeout = 60_000;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        resolve();
      });
    });
  return { port: await listen(server, port, host), close };
}
