/**
 * The least any HTTP service must do to answer a realtime token for a set of rooms, in a
 * process of its own: read the request, send the one BatchGetItem of the rooms' keys and, at
 * once, the GetItem of the caller's erasure marker, write the rooms' access-trail entries (one
 * TransactWriteItems, as the trail must hold them before a token is handed out), sign the
 * claims, answer. No authorizer, no payload 2.0 event, no middleware, no logs, no
 * metrics, no validation. It is the token bench's floor for our own work: the local stage
 * answers the same request with all of those, and the difference between the two is ours.
 * Prints its URL, then serves until SIGTERM.
 */
import { createServer } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '#shared/storage/aws/batch-get.ts';
import { erasureMarkerKey, PARTITION_KEY } from '#shared/storage/keys.ts';
import { dealKey, memberKey } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { parseRoomId } from '#shared/realtime/room-id.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { newAccessEntry } from '#shared/access-trail/access-entry.ts';
import { DynamoAccessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { floorClient } from './floor-client.ts';

const [dynamodbEndpoint, table, userIdText] = process.argv.slice(2);
if (dynamodbEndpoint === undefined || table === undefined || userIdText === undefined) {
  throw new Error('usage: bare-token-service.ts <dynamodbEndpoint> <tableName> <userId>');
}
const tableName = table;
const userId = Number(userIdText);
const client = floorClient(dynamodbEndpoint);
const trail = new DynamoAccessTrail(client, {
  tableName: trailTableNameOf(tableName),
  retentionDays: 400,
});
const keys = await withNewKey({ keys: [] }, new Date(), { activateInSeconds: 0, tokenSeconds: 60 });

async function tokenFor(roomIds: readonly string[]): Promise<string> {
  const keysRead = new Map<string, Record<string, string>>();
  const requester = { userId, requestId: 'bare', sourceIp: '127.0.0.1' };
  const entries = [];
  for (const roomId of roomIds) {
    const room = parseRoomId(roomId);
    if (room === undefined) throw new Error(`not a room id: ${roomId}`);
    const facts = { groupId: room.groupId, dealId: room.dealId, roomId };
    entries.push(
      newAccessEntry({ action: 'realtime_token.issue', outcome: 'allowed', ...facts }, requester),
    );
    for (const key of [memberKey(room.groupId, userId), dealKey(room.groupId, room.dealId)]) {
      keysRead.set(`${key.PK} ${key.SK}`, key);
    }
  }
  const marker = new GetCommand({
    TableName: tableName,
    Key: erasureMarkerKey(userId),
    ConsistentRead: true,
    ProjectionExpression: '#pk',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY },
  });
  await Promise.all([
    keysRead.size > 0 ? batchGetAll(client, tableName, [...keysRead.values()], ['role']) : [],
    client.send(marker),
  ]);
  if (entries.length > 0) await trail.record(entries);
  return signRealtimeToken(keys, new Date(), {
    issuer: 'http://localhost',
    audience: 'realtime',
    subject: String(userId),
    tokenSeconds: 60,
    rooms: Object.fromEntries(roomIds.map((roomId) => [roomId, ['read', 'write']])),
  });
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const { room_ids: roomIds } = JSON.parse(Buffer.concat(chunks).toString()) as {
      room_ids: string[];
    };
    tokenFor(roomIds).then(
      (token) => {
        const body = JSON.stringify({ token });
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
      },
      (error: unknown) => {
        console.error(error);
        response.writeHead(500).end();
      },
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  console.log(JSON.stringify({ url: `http://localhost:${String(port)}` }));
});
process.on('SIGTERM', () => {
  client.destroy();
  server.close(() => process.exit(0));
});
