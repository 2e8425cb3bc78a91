import type { FunctionResources } from '#shared/functions/function-declaration.ts';

/**
 * The complete route and the finalizer run the same completion, whichever comes first: they
 * read the form's bytes and copy them to the file's key (GetObject there, PutObject here, and,
 * in the finalizer, a HeadObject of the recorded copy when form bytes remain), delete them once
 * recorded or refused, and delete a copy no record names.
 */
export const DIRECT_UPLOAD_COMPLETION = {
  table: [
    {
      items: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'],
      in: 'users',
      why: 'ConditionCheckItem: the owner is not erased',
    },
  ],
  bucket: [
    {
      objects: ['s3:GetObject', 's3:DeleteObject'],
      under: 'uploads/',
      why: "read, copy, discard the form's bytes",
    },
    {
      objects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      under: 'users/',
      why: 'the copy, a look at the recorded copy when form bytes remain, and a copy no record names',
    },
    { missingObjectsAsNotFound: true },
    // An erased user's upload: the copy and the form's bytes go with every version.
    { listVersionsUnder: ['users/', 'uploads/'] },
    {
      objects: ['s3:DeleteObjectVersion'],
      under: 'users/',
      why: "an erased user's upload, every version",
    },
    {
      objects: ['s3:DeleteObjectVersion'],
      under: 'uploads/',
      why: "an erased user's upload, every version",
    },
  ],
} as const satisfies Required<Pick<FunctionResources, 'table' | 'bucket'>>;
