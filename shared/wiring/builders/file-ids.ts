import { DynamoBlockIdAllocator } from '../../adapters/dynamo-block-id-allocator.ts';
import { FILE_ID_SEQUENCE } from '../../adapters/keys.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/**
 * File ids, user and deal files alike, from the table's one sequence, reserved `blockSize` at
 * a time (the allocator's own default unless given).
 */
export const fileIdsInBlocksOf =
  (blockSize?: number) =>
  ({ documents, TABLE_NAME }: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
    new DynamoBlockIdAllocator(documents(), TABLE_NAME, {
      sequence: FILE_ID_SEQUENCE,
      ...(blockSize === undefined ? {} : { blockSize }),
    });

/** File ids as the functions take them: a block per container. */
export const fileIds = fileIdsInBlocksOf();
