/**
 * S3 client options for an endpoint override (s3rver locally): path-style addressing, and
 * checksums only where S3 requires them, or s3rver stores the chunk framing in the object.
 */
export function s3ClientOptions(endpoint: string | undefined) {
  return endpoint === undefined
    ? {}
    : ({
        endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      } as const);
}
