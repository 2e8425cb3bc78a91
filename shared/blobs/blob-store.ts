/** An object as the store reports it. */
export interface StoredBlob {
  readonly size: number;
  readonly contentType: string | undefined;
  /**
   * The bytes' MD5 (SSE-S3): other bytes of the same MD5 share it, so it pins nothing that
   * integrity rests on; a version does.
   */
  readonly etag: string;
}

/**
 * The object's current version as HEAD reports it: a write under the key since is another
 * version, and this one's bytes never change (read, hash and copy one version).
 */
export interface StoredVersion extends StoredBlob {
  readonly versionId: string;
}

/** What a copy wrote. */
export interface CopiedBlob {
  readonly etag: string;
  /**
   * The SHA-256 the store worked out for the copy (base64), when it says: S3 computes it from
   * the source it copied (`ChecksumAlgorithm: SHA256`).
   */
  readonly sha256: string | undefined;
}

export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';
  readonly key: string;

  constructor(key: string, options: { cause?: unknown } = {}) {
    super(`No object under ${key}`, options);
    this.key = key;
  }
}

/** The version named (of a digest or a copy's source) is no longer there: it was written over. */
export class BlobChangedError extends Error {
  override name = 'BlobChangedError';
  readonly key: string;

  constructor(key: string, options: { cause?: unknown } = {}) {
    super(`The object under ${key} changed`, options);
    this.key = key;
  }
}

/**
 * Where each file's bytes are kept in the store. The layout is the store's own: a use case
 * asks for the key of the file it means and never builds one, so only the adapter knows it.
 */
interface FileObjectKeys {
  /** A user file's bytes: the one key of theirs no upload form can reach. */
  userFileKey(userId: number, fileId: number): string;
  /** Where a direct upload's signed form puts its bytes, until completion copies them. */
  directUploadKey(userId: number, fileId: number): string;
  /** A deal file's bytes. */
  dealFileKey(groupId: number, dealId: number, fileId: number): string;
  /** The key prefixes under which all of a user's bytes are kept: their files and uploads. */
  userKeyPrefixes(userId: number): readonly string[];
}

/** Where file bytes live. Keys are ours (`FileObjectKeys`), never a client's name. */
export interface BlobStore extends FileObjectKeys {
  /**
   * Stores the bytes. With `sha256` (base64 of the 32 bytes), the store checks them against it
   * as they arrive and refuses bytes that differ, storing nothing.
   */
  put(
    key: string,
    content: Uint8Array,
    options: { readonly contentType: string; readonly sha256?: string },
  ): Promise<void>;
  /**
   * The SHA-256 of the object's bytes (base64 of the 32 bytes), read through once:
   * BlobNotFoundError when there is none, BlobChangedError when `versionId` is given and that
   * version is no longer there.
   */
  digest(key: string, options?: { readonly versionId?: string }): Promise<string>;
  /** The object's current version, its size and type, or undefined when there is none. */
  head(key: string): Promise<StoredVersion | undefined>;
  /**
   * The object's size and ETag as the bucket's listing shows them (no type), or undefined:
   * no read of the object, so it answers for one the malware scan still holds.
   */
  listed(key: string): Promise<StoredBlob | undefined>;
  /**
   * Copies an object within the store, the version named or else the current one:
   * BlobNotFoundError when the source is not there, BlobChangedError when the version named
   * is no longer there. Nothing is written then.
   */
  copy(
    sourceKey: string,
    key: string,
    options?: { readonly versionId?: string },
  ): Promise<CopiedBlob>;
  /** Deletes the object; deleting one that is not there succeeds. */
  delete(key: string): Promise<void>;
  /** How a record says where the bytes are: `s3://<bucket>/<key>`. */
  locationOf(key: string): string;
}

/** One version a versioned bucket keeps of an object, or one of its delete markers. */
export interface BlobVersion {
  readonly key: string;
  readonly versionId: string;
  /** What a read of the key gets now (a delete marker's `isLatest` hides the object). */
  readonly isLatest: boolean;
}

/**
 * The bucket keeps every version of an object until its lifecycle expires them: a delete
 * that must be permanent (a user's own, an erasure) reaches each one.
 */
export interface BlobVersions {
  /** Every version and delete marker of the keys that start with `prefix`, page by page. */
  versionsUnder(prefix: string): AsyncIterable<readonly BlobVersion[]>;
  /** Deletes these versions for good; throws when any one will not go. */
  deleteVersions(versions: readonly BlobVersion[]): Promise<void>;
}

export interface UploadForm {
  /** Where the client POSTs the form. */
  readonly url: string;
  /** The form fields to send, in order, before the `file` part. */
  readonly fields: Readonly<Record<string, string>>;
}

/** Signs browser-style POST uploads that the store itself holds to our conditions. */
export interface UploadSigner {
  signUpload(
    key: string,
    options: {
      readonly maxBytes: number;
      readonly contentType: string;
      /** The SHA-256 the bytes must have (base64 of the 32 bytes): the store refuses others. */
      readonly sha256?: string;
      /** Stored with the object as `x-amz-meta-<name>`; each value is signed exactly. */
      readonly metadata: Readonly<Record<string, string>>;
      readonly expiresInSeconds: number;
    },
  ): Promise<UploadForm>;
}

/** Signs short-lived download links that save the bytes under the file's own name. */
export interface DownloadSigner {
  signDownload(
    key: string,
    options: { readonly downloadName: string; readonly expiresInSeconds: number },
  ): Promise<string>;
}
