import type { FunctionSpec } from './function-declaration.ts';

/**
 * The part of their declarations the two functions that complete a direct upload share
 * (CompleteDirectUpload, FinalizeDirectUpload): the calls, resources and setting it needs.
 * The complete route and the finalizer run the same completion, whichever comes first: they
 * read one version of the form's bytes (its SHA-256) and copy that version to the file's key
 * (GetObjectVersion there, PutObject here), delete them once recorded or refused, and delete
 * a copy no record names. The recorded copy
 * is only ever listed (ListBucket), never read: until its malware scan clears it, the bucket's
 * policy lets no function read it.
 */
export const DIRECT_UPLOAD_COMPLETION = {
  table: [
    {
      items: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'Query'],
      in: 'users',
      why: 'ConditionCheckItem: the owner is not erased; UpdateItem: the usage the file settles; Query: a first count of it',
    },
  ],
  bucket: [
    {
      objects: ['s3:GetObject', 's3:GetObjectVersion', 's3:DeleteObject'],
      under: 'uploads/',
      why: "read, copy (one version), discard the form's bytes",
    },
    {
      objects: ['s3:PutObject', 's3:DeleteObject'],
      under: 'users/',
      why: 'the copy, and a copy no record names',
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
  // A new file waits for its malware-scan verdict only on a stage that scans.
  settings: ['MALWARE_SCANNING'],
} as const satisfies Required<Pick<FunctionSpec, 'table' | 'bucket' | 'settings'>>;
