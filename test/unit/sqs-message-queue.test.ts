import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsMessageQueue } from '#shared/queue/adapters/sqs-message-queue.ts';

/** SQS is not on these machines; what matters here is the request each call makes. */
function recordingClient() {
  const requests: { name: string; input: unknown }[] = [];
  const client = {
    send: (command: { constructor: { name: string }; input: unknown }) => {
      requests.push({ name: command.constructor.name, input: command.input });
      return Promise.resolve({});
    },
  } as unknown as SQSClient;
  return { client, requests };
}

describe('SqsMessageQueue', () => {
  const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Notifications';

  it('sends the body to its queue', async () => {
    const { client, requests } = recordingClient();
    await new SqsMessageQueue(client, url).send('{"a":1}');
    expect(requests).toEqual([
      { name: 'SendMessageCommand', input: { QueueUrl: url, MessageBody: '{"a":1}' } },
    ]);
  });

  it("sends a message's group as its MessageGroupId: the standard queue is then a fair queue", async () => {
    const { client, requests } = recordingClient();
    await new SqsMessageQueue(client, url).send('{"a":1}', 'user-42');
    expect(requests).toEqual([
      {
        name: 'SendMessageCommand',
        input: { QueueUrl: url, MessageBody: '{"a":1}', MessageGroupId: 'user-42' },
      },
    ]);
  });

  it('puts a message off by whole seconds, rounded up, at most 12 hours', async () => {
    const { client, requests } = recordingClient();
    const queue = new SqsMessageQueue(client, url);
    for (const ms of [0, 1, 1000, 1001, 99_000_000, -5]) await queue.changeVisibility('h', ms);
    expect(
      requests.map((r) => (r.input as { VisibilityTimeout: number }).VisibilityTimeout),
    ).toEqual([0, 1, 1, 2, 43_200, 0]);
    expect(requests[0]).toEqual({
      name: 'ChangeMessageVisibilityCommand',
      input: { QueueUrl: url, ReceiptHandle: 'h', VisibilityTimeout: 0 },
    });
  });
});
