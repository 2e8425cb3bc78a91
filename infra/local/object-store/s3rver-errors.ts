import { createRequire } from 'node:module';

type Detail = Readonly<Record<string, string | number>>;

interface S3ErrorClass {
  new (code: string, message: string, detail?: Detail): Error;
}

/**
 * s3rver's own error class (the package exports none): its error handler answers an instance
 * with S3's XML, `<Error><Code>…</Code><Message>…</Message>` and each detail as an element,
 * under the status S3 gives the code. Anything else it answers as an InternalError.
 */
const S3Error = createRequire(import.meta.url)('s3rver/lib/models/error.js') as S3ErrorClass;

export const s3Error = (code: string, message: string, detail: Detail = {}): Error =>
  new S3Error(code, message, detail);
