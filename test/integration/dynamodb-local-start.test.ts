/**
 * A port that was free when asked for can be taken before the JVM binds it. The start must
 * never take the other server for DynamoDB Local (on a port it chose, it chooses again; the
 * global setup's start shows the ordinary case).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

const squatter = createServer((_request, response) => {
  response.statusCode = 404;
  response.end('Not Found');
});
let taken: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as AddressInfo).port;
});
afterAll(() => {
  squatter.close();
});

describe('starting DynamoDB Local', () => {
  it('refuses a port another server answers on, naming why', async () => {
    await expect(startDynamoDbLocal({ port: taken })).rejects.toThrow(
      'DynamoDB Local could not start: its port was taken by another server',
    );
  });
});
