import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { SERVICE_ADAPTER_BUILDERS } from '#shared/wiring/service-adapter-builders.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';

describe('the composition root', () => {
  it('has a builder for every adapter a handler may take, and nothing else', () => {
    // Both lists are the adapter set's keys: a port without a builder, or a builder for no
    // port, fails to compile here and where the builders are declared.
    expectTypeOf<keyof typeof SERVICE_ADAPTER_BUILDERS>().toEqualTypeOf<keyof ServiceAdapters>();
  });

  it('builds every adapter of the set from the sources a deployed function has', () => {
    const region = 'eu-west-1';
    const adapters = composeAdapters(
      {
        TABLE_NAME: 'table',
        TRAIL_TABLE_NAME: 'trail',
        ACCESS_TRAIL_RETENTION_DAYS: 400,
        TRAIL_DIGEST_BUCKET_NAME: 'digests',
        BUCKET_NAME: 'bucket',
        NOTIFY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/notify',
        NOTIFY_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/1/notify-dlq',
        REALTIME_KEYS_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:keys',
        CHAT_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:chat',
        CHAT_TIMEOUT_SECONDS: 5,
        dynamodb: () => new DynamoDBClient({ region }),
        documents: () => DynamoDBDocumentClient.from(new DynamoDBClient({ region })),
        s3: () => new S3Client({ region }),
        sqs: () => new SQSClient({ region }),
        secretsManager: () => new SecretsManagerClient({ region }),
      },
      SERVICE_ADAPTER_BUILDERS,
    );
    // Each read builds one adapter, and no builder calls AWS to be built.
    for (const name of Object.keys(SERVICE_ADAPTER_BUILDERS) as (keyof ServiceAdapters)[]) {
      expect(adapters[name], name).toBeTypeOf('object');
    }
  });

  it('builds an adapter when it is first read, once, and no other', () => {
    const built: string[] = [];
    const adapters = composeAdapters(
      { TABLE_NAME: 'table' },
      {
        named: ({ TABLE_NAME }: { TABLE_NAME: string }) => {
          built.push(TABLE_NAME);
          return { TABLE_NAME };
        },
        unread: () => {
          built.push('unread');
          return {};
        },
      },
    );
    expect(built).toEqual([]);
    const { named } = adapters;
    expect(adapters.named).toBe(named);
    expect(built).toEqual(['table']);
  });

  it('builds again on the next read after a build that threw', () => {
    let tries = 0;
    const adapters = composeAdapters(
      {},
      {
        flaky: () => {
          tries++;
          if (tries === 1) throw new Error('first try');
          return { tries };
        },
      },
    );
    expect(() => adapters.flaky).toThrow('first try');
    expect(adapters.flaky).toEqual({ tries: 2 });
  });

  it('does not compile when the sources lack what a builder needs', () => {
    // @ts-expect-error: userFiles needs a document client and TABLE_NAME.
    const adapters = composeAdapters({ BUCKET_NAME: 'bucket' }, { userFiles });
    expect(Object.keys(adapters)).toEqual(['userFiles']);
  });
});
