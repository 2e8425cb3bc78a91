/**
 * How the local stage starts DynamoDB Local. A port that was free when asked for can be taken
 * before the JVM binds it: the start must never take the other server for DynamoDB Local (on a
 * port it chose, it chooses again; the global setup's start shows the ordinary case).
 *
 * DynamoDB Local accepts any signature, so where it listens is who can read and change every
 * record: loopback only, whatever the stage's HOST says. Its heap is bounded, and no
 * web page of another origin may call it.
 */
import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningStandIn } from '#infra/local/stage/stand-ins.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { DYNAMODB_LOCAL_HEAP, startDynamoDbLocal } from '#infra/local/dynamodb/dynamodb-local.ts';
import { waitLimit } from '#test/support/wait-limit.ts';

const squatter = createServer((_request, response) => {
  response.statusCode = 404;
  response.end('Not Found');
});
let taken: number;
/** The global setup's, started with the defaults, as the local stage starts it. */
const loopback = { endpoint: inject('standIns').dynamodbEndpoint };
/** One of this file's own, whose process it can read. */
let started: RunningStandIn;
beforeAll(async () => {
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as AddressInfo).port;
  started = await startDynamoDbLocal();
}, waitLimit(90_000));
afterAll(async () => {
  squatter.close();
  await started.stop();
});

const portOf = (standIn: { endpoint: string }) => Number(new URL(standIn.endpoint).port);

/** This machine's addresses other than loopback; link-local IPv6 ones with their interface. */
const otherAddresses = Object.entries(networkInterfaces()).flatMap(([name, addresses]) =>
  (addresses ?? [])
    .filter((address) => !address.internal)
    .map((address) =>
      address.family === 'IPv6' && address.address.startsWith('fe80:')
        ? `${address.address}%${name}`
        : address.address,
    ),
);

/** Opens a TCP connection and closes it: 'connected', or the error's code. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: waitLimit(5_000) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code ?? error.message);
    });
  });
}

/** A /proc/net address (hex, each 32-bit word in host order, little-endian here) as text. */
function procAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse());
  const octets = bytes.map((byte) => parseInt(byte, 16));
  if (octets.length === 4) return octets.join('.');
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is where Java listens for an IPv4 address.
  if (octets.slice(0, 10).every((o) => o === 0) && octets[10] === 255 && octets[11] === 255) {
    return octets.slice(12).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((octets[2 * i] ?? 0) << 8) | (octets[2 * i + 1] ?? 0)).toString(16),
  );
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** Every local address a socket listens on at `port`, read from the kernel's tables. */
async function listeningAddresses(port: number): Promise<string[]> {
  const found = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8')).split('\n').slice(1);
    for (const line of lines) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, hexPort] = (local ?? '').split(':');
      // 0A: LISTEN.
      if (state === '0A' && address !== undefined && parseInt(hexPort ?? '', 16) === port) {
        found.add(procAddress(address));
      }
    }
  }
  return [...found].sort();
}

describe('starting DynamoDB Local', () => {
  it('refuses a port another server answers on, naming why', async () => {
    await expect(startDynamoDbLocal({ port: taken })).rejects.toThrow(
      'DynamoDB Local could not start: its port was taken by another server',
    );
  });
});

describe('DynamoDB Local as the local stage starts it (and the tests)', () => {
  it.runIf(process.platform === 'linux')('listens on 127.0.0.1 only', async () => {
    expect(loopback.endpoint).toBe(`http://127.0.0.1:${String(portOf(loopback))}`);
    expect(await listeningAddresses(portOf(loopback))).toEqual(['127.0.0.1']);
  });

  it.skipIf(otherAddresses.length === 0)(
    `is not reachable on this machine's other addresses (${otherAddresses.join(', ') || 'none: this machine has only loopback, so the bind address above is the test'})`,
    async () => {
      const answers = await Promise.all(
        otherAddresses.map(async (address) => [
          address,
          await tryConnect(address, portOf(loopback)),
        ]),
      );
      expect(Object.fromEntries(answers)).toEqual(
        Object.fromEntries(otherAddresses.map((address) => [address, 'ECONNREFUSED'])),
      );
      // The same port on loopback answers: the refusals above are the bind, not a dead server.
      expect(await tryConnect('127.0.0.1', portOf(loopback))).toBe('connected');
    },
  );

  it.runIf(process.platform === 'linux')(`runs with a heap of ${DYNAMODB_LOCAL_HEAP}`, async () => {
    const args = (await readFile(`/proc/${String(started.pid)}/cmdline`, 'utf8')).split('\0');
    expect(args[0]).toBe('java');
    expect(args.filter((arg) => arg.startsWith('-Xmx'))).toEqual([`-Xmx${DYNAMODB_LOCAL_HEAP}`]);
  });

  describe('to a web page of another origin', () => {
    const origin = 'https://evil.example';
    const tableName = `cors-probe-${randomUUID().slice(0, 8)}`;
    let client: DynamoDBClient;
    beforeAll(async () => {
      client = new DynamoDBClient({
        endpoint: loopback.endpoint,
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
      });
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        }),
      );
    });
    afterAll(() => {
      client.destroy();
    });

    it("answers a browser's preflight with no Access-Control-Allow-Origin", async () => {
      const preflight = await fetch(loopback.endpoint, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-amz-date,x-amz-target',
        },
      });
      expect(preflight.status).toBe(200);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(await preflight.text()).toBe('');
    });

    it('refuses the one request a page may send without a preflight, storing nothing', async () => {
      // A form or `no-cors` fetch: text/plain, no Authorization, no X-Amz-Target.
      const answer = await fetch(loopback.endpoint, {
        method: 'POST',
        headers: { origin, 'content-type': 'text/plain' },
        body: JSON.stringify({ TableName: tableName, Item: { PK: { S: 'planted' } } }),
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(await answer.json()).toEqual({
        __type: 'com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken',
        Message:
          'Request must contain either a valid (registered) AWS access key ID or X.509 certificate.',
      });
      const { Count } = await client.send(new ScanCommand({ TableName: tableName }));
      expect(Count).toBe(0);
    });

    it('refuses a request addressed to another name (a page that rebinds its own name to 127.0.0.1)', async () => {
      const listTables = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const sent = request(
            loopback.endpoint,
            {
              method: 'POST',
              headers: {
                host,
                'content-type': 'application/x-amz-json-1.0',
                'x-amz-target': 'DynamoDB_20120810.ListTables',
                authorization: `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/20260101/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
              },
            },
            (answer) => {
              let body = '';
              answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
              answer.on('end', () => {
                resolve({ status: answer.statusCode ?? 0, body });
              });
            },
          );
          sent.once('error', reject);
          sent.end('{}');
        });
      const port = String(portOf(loopback));
      expect(await listTables(`rebound.evil.example:${port}`)).toEqual({
        status: 403,
        body: JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
          Message:
            'DynamoDB Local answers only requests addressed to localhost, 127.0.0.1 or [::1]',
        }),
      });
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
        expect((await listTables(host)).status).toBe(200);
      }
    });

    it('names no origin in an answer to a signed request from it', async () => {
      // DynamoDB Local takes any signature; what a browser would send after a preflight.
      const answer = await fetch(loopback.endpoint, {
        method: 'POST',
        headers: {
          origin,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/20260101/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
        },
        body: '{}',
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await answer.json()) as { TableNames: string[] }).TableNames).toContain(tableName);
    });
  });
});

describe('stopping DynamoDB Local', () => {
  // A wait's timer left running after the JVM exited kept every run of the suites, and every
  // program that stopped one, up for five more seconds.
  it('leaves no timer keeping the process up once the JVM has exited', async () => {
    const pending = new Map<number, NodeJS.Timeout>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (type === 'Timeout') pending.set(id, resource as NodeJS.Timeout);
      },
      destroy(id) {
        pending.delete(id);
      },
    }).enable();
    try {
      await started.stop();
    } finally {
      hook.disable();
    }
    expect([...pending.values()].filter((timer) => timer.hasRef())).toEqual([]);
  });
});
