import { AccessDenied } from '../domain/outcome.ts';

/** What one user may hold at once: files, and their bytes. Stage settings. */
export interface StorageLimits {
  readonly files: number;
  readonly bytes: number;
}

/** An amount of storage: a number of files and their bytes. */
export interface Storage {
  readonly files: number;
  readonly bytes: number;
}

/**
 * What counts against a user's limits: the files they hold, and the direct uploads signed
 * but not yet completed, each at its declared size (the most its form lets S3 take).
 */
export interface Usage {
  readonly used: Storage;
  readonly reserved: Storage;
}

/** Everything a limit is held against: files held plus those reserved. */
const heldOf = (usage: Usage): Storage => ({
  files: usage.used.files + usage.reserved.files,
  bytes: usage.used.bytes + usage.reserved.bytes,
});

/** The storage one new file takes. */
export const oneFile = (bytes: number): Storage => ({ files: 1, bytes });

/**
 * Over the limit: Google Drive's answer to the same (403, `storageQuotaExceeded`), with the
 * limit, what is held and what was asked in the words of the limit that was hit.
 */
export class QuotaExceeded extends AccessDenied {
  readonly limit: number;
  readonly held: number;
  readonly asked: number;
  readonly unit: 'files' | 'bytes';

  constructor(unit: 'files' | 'bytes', limit: number, held: number, asked: number) {
    super(
      `Storage quota exceeded: ${String(limit)} ${unit} allowed, ${String(held)} in use, ${String(asked)} more asked`,
    );
    this.unit = unit;
    this.limit = limit;
    this.held = held;
    this.asked = asked;
  }
}

/**
 * The refusal for asking `asked` on top of `usage`, or undefined when it fits. The files
 * limit speaks first: it is the one a client can do least about.
 */
export function quotaRefusal(
  usage: Usage,
  limits: StorageLimits,
  asked: Storage,
): QuotaExceeded | undefined {
  const held = heldOf(usage);
  if (held.files + asked.files > limits.files) {
    return new QuotaExceeded('files', limits.files, held.files, asked.files);
  }
  if (held.bytes + asked.bytes > limits.bytes) {
    return new QuotaExceeded('bytes', limits.bytes, held.bytes, asked.bytes);
  }
  return undefined;
}
