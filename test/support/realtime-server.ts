import { Server } from '@hocuspocus/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';

/**
 * A real collaboration server that trusts our realtime tokens, as the README tells a realtime
 * server to: verify the token against our JWKS (ES256, issuer, audience, expiry), admit a
 * document only when its name is a room in the token, and read-only unless the room grants
 * `write`.
 */
export async function startRealtimeServer(options: { baseUrl: string; audience?: string }) {
  const jwks = createRemoteJWKSet(new URL(`${options.baseUrl}/api/v1/auth/realtime-jwks.json`));
  // The client sees `reason`; an error without a message keeps the server's log quiet.
  const refuse = (reason: string) => Object.assign(new Error(), { reason });
  // Updates from read-only connections, which the server drops (answering "not applied"): a
  // test waits on this count, not on a delay, before it checks that a viewer changed nothing.
  let droppedUpdates = 0;
  const server = new Server({
    port: 0,
    quiet: true,
    stopOnSignals: false,
    async onAuthenticate({ token, documentName, connectionConfig }) {
      let rooms: Record<string, string[] | undefined>;
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.baseUrl,
          audience: options.audience ?? 'realtime',
          algorithms: ['ES256'],
        });
        rooms = (payload.rooms ?? {}) as typeof rooms;
      } catch {
        throw refuse('invalid-token');
      }
      const permissions = rooms[documentName];
      if (permissions === undefined) throw refuse('room-not-granted');
      if (!permissions.includes('write')) connectionConfig.readOnly = true;
    },
    beforeSync({ connection, type }) {
      // y-protocols' messageYjsUpdate; the drop follows in the same task as this hook.
      if (connection.readOnly && type === 2) droppedUpdates += 1;
      return Promise.resolve();
    },
  });
  await server.listen();
  return {
    url: `ws://127.0.0.1:${String(server.address.port)}`,
    document: (name: string) => server.hocuspocus.documents.get(name),
    /** How many updates read-only connections have sent, each dropped by the server. */
    droppedUpdates: () => droppedUpdates,
    close: () => server.destroy(),
  };
}
