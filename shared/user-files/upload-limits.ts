/**
 * The contract's "50 MB", read as 50 MiB (52,428,800 bytes). FastAPI services write the check
 * as `50 * 1024 * 1024` as often as `50_000_000`; the larger reading refuses no file that
 * either would have taken.
 */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/**
 * Longest file name, in characters. It travels in the signed S3 metadata of a direct upload,
 * which S3 caps at 2 KB in all; 255 characters of any script fit once encoded.
 */
export const MAX_FILE_NAME_LENGTH = 255;

export const tooLargeMessage = (): string =>
  `File too large: the limit is ${MAX_UPLOAD_BYTES} bytes (50 MiB)`;
