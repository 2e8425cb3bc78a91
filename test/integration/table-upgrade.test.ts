import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTable, tableDefinition } from '#infra/local/dynamodb/dynamodb-local.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { FILE_CREATED_ATTRIBUTE, FILES_BY_CREATION_INDEX } from '#shared/storage/keys.ts';
import { emulatorClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = emulatorClients();
afterAll(() => {
  dynamodb.destroy();
});

/** A user file as items were written before the index: no `file_created`. */
const oldFileItem = (userId: number, id: number) => ({
  PK: `USER#${String(userId)}`,
  SK: `FILE#${String(id)}`,
  entity: 'UserFile',
  user_id: userId,
  id,
  name: `old ${String(id)}.pdf`,
  type: 'deck',
  created_at: `2026-01-0${String(id)}T00:00:00.000Z`,
  updated_at: null,
  is_archived: false,
  filesize: 10,
  location: null,
});

describe('a local table from before the FilesByCreation index', () => {
  it('is rebuilt with the index, every item kept, the files listed newest first', async () => {
    const tableName = `old-${randomUUID().slice(0, 8)}`;
    const { LocalSecondaryIndexes: _, ...before } = tableDefinition(tableName);
    const oldDefinition = {
      ...before,
      AttributeDefinitions: before.AttributeDefinitions?.filter(
        (attribute) => attribute.AttributeName !== FILE_CREATED_ATTRIBUTE,
      ),
    };
    await dynamodb.send(new CreateTableCommand(oldDefinition));
    const other = { PK: 'GROUP#1', SK: 'MEMBER#7', role: 'viewer' };
    for (const Item of [oldFileItem(7, 1), oldFileItem(7, 2), other]) {
      await dynamodb.send(new PutCommand({ TableName: tableName, Item }));
    }

    await ensureTable(dynamodbEndpoint, tableName);

    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.LocalSecondaryIndexes?.map((index) => index.IndexName)).toEqual([
      FILES_BY_CREATION_INDEX,
    ]);
    const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: tableName }));
    expect(Items).toHaveLength(3);
    expect(Items).toContainEqual(other);
    const listed = await new DynamoUserFileRepository(dynamodb, tableName).listByOwner(7);
    expect(listed.items.map((file) => file.id)).toEqual([2, 1]);

    // A second start finds the index and leaves the table be.
    await ensureTable(dynamodbEndpoint, tableName);
    expect((await dynamodb.send(new ScanCommand({ TableName: tableName }))).Items).toHaveLength(3);
  });
});
