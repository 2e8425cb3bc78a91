import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { type ApiEvent, bodyBytes, mediaType } from './api-event.ts';
import { bodyStreamOf } from './body-stream.ts';
import { BadRequestError, PayloadTooLargeError } from './http-errors.ts';

/** Where a file sink put a part's bytes, and how to take them back. */
export interface StoredFile {
  readonly id: number;
  readonly key: string;
  readonly size: number;
  /** Deletes the stored bytes: the form failed, so nothing of it may stay. */
  discard(): Promise<void>;
}

/**
 * Takes a file part's bytes as they arrive, for a body that is itself still arriving (the
 * local stage's uploads), so they need not be held in memory.
 */
export type FileSink = (
  stream: Readable,
  info: { readonly contentType: string },
) => Promise<StoredFile>;

/** A part sent with a filename: Starlette's UploadFile. */
export class FilePart {
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** The bytes, when the form was read into memory. */
  readonly content: Buffer | undefined;
  /** Where a file sink put the bytes, when one took them. */
  readonly stored: StoredFile | undefined;

  constructor(
    filename: string,
    contentType: string,
    bytes: { readonly content: Buffer } | { readonly stored: StoredFile },
  ) {
    this.filename = filename;
    this.contentType = contentType;
    this.content = 'content' in bytes ? bytes.content : undefined;
    this.stored = 'stored' in bytes ? bytes.stored : undefined;
    this.size = 'content' in bytes ? bytes.content.byteLength : bytes.stored.size;
  }

  async discard(): Promise<void> {
    await this.stored?.discard();
  }
}

export type FormValue = string | FilePart;

/** Deletes whatever a sink stored for this form, but for the parts `kept`. */
export async function discardFiles(
  form: Readonly<Record<string, unknown>>,
  kept: readonly unknown[] = [],
): Promise<void> {
  const files = Object.values(form).filter(
    (value) => value instanceof FilePart && !kept.includes(value),
  );
  await Promise.all(files.map((file) => (file as FilePart).discard()));
}

export interface FormLimits {
  /** Largest file part, in bytes; one byte more is a 413. */
  readonly maxFileBytes: number;
  readonly fileTooLargeMessage: string;
  /** Largest plain field, in bytes. */
  readonly maxFieldBytes: number;
  readonly maxFields: number;
  readonly maxFiles: number;
}

const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

/** A part's own content type when it is one, else what S3 would assume. */
const contentTypeOf = (mimeType: string): string =>
  MEDIA_TYPE.test(mimeType) && mimeType.length <= 255 ? mimeType : 'application/octet-stream';

/**
 * The parts of one file as a single buffer. Parsed from one in-memory body, they are views
 * of it, back to back, so this costs no copy; anything else is copied together.
 */
function joined(chunks: readonly Buffer[], size: number): Buffer {
  const [first, ...rest] = chunks;
  if (first === undefined) return Buffer.alloc(0);
  let end = first.byteOffset + first.byteLength;
  for (const chunk of rest) {
    if (chunk.buffer !== first.buffer || chunk.byteOffset !== end) {
      return Buffer.concat(chunks, size);
    }
    end += chunk.byteLength;
  }
  return Buffer.from(first.buffer, first.byteOffset, size);
}

/**
 * Reads a form body as FastAPI (Starlette) does: multipart and urlencoded bodies are parsed,
 * any other body is an empty form, so each required part is reported missing. A part is a
 * file only when it names a filename. Where Starlette answers 400 for a form past its
 * limits, so does this, in its words; framing it cannot parse is FastAPI's generic 400.
 * A file past the size limit is a 413. Unlike Starlette, a part sent twice is refused
 * rather than the last one silently winning.
 */
export async function readForm(
  event: Pick<ApiEvent, 'body' | 'isBase64Encoded' | 'headers'>,
  limits: FormLimits,
  sink?: FileSink,
): Promise<Record<string, FormValue>> {
  const stream = bodyStreamOf(event);
  const contentType = event.headers['content-type'] ?? '';
  const type = mediaType(contentType);
  if (type !== 'multipart/form-data' && type !== 'application/x-www-form-urlencoded') {
    stream?.resume();
    return Object.create(null) as Record<string, FormValue>;
  }

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defCharset: 'utf8',
      defParamCharset: 'utf8',
      fileHwm: 1024 * 1024,
      limits: {
        // busboy flags a file of exactly `fileSize` bytes as cut short.
        fileSize: limits.maxFileBytes + 1,
        fieldSize: limits.maxFieldBytes,
        fields: limits.maxFields,
        files: limits.maxFiles,
      },
    });
  } catch {
    stream?.resume();
    throw new BadRequestError(
      type === 'multipart/form-data'
        ? 'Missing boundary in multipart.'
        : 'There was an error parsing the body',
    );
  }

  // Part names are the client's: `__proto__` or `constructor` must be parts like any other,
  // never the form's prototype, or a stored file would hide from `discardFiles`.
  const form = Object.create(null) as Record<string, FormValue>;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };
  const partTooLarge = () =>
    new BadRequestError(
      `Part exceeded maximum size of ${Math.floor(limits.maxFieldBytes / 1024)}KB.`,
    );
  const accept = (name: string, value: FormValue, nameTruncated: boolean): boolean => {
    if (nameTruncated) fail(new BadRequestError('There was an error parsing the body'));
    else if (Object.hasOwn(form, name)) {
      fail(new BadRequestError(`Part '${name}' was sent more than once.`));
    } else {
      form[name] = value;
      return true;
    }
    return false;
  };

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(partTooLarge());
    else accept(name, value, info.nameTruncated);
  });
  const stored: Promise<void>[] = [];
  parser.on('file', (name, part, info) => {
    const contentType = contentTypeOf(info.mimeType);
    part.on('error', () => {
      fail(new BadRequestError('There was an error parsing the body'));
    });
    part.on('limit', () => {
      fail(new PayloadTooLargeError(limits.fileTooLargeMessage));
    });
    // A file streamed to a sink; busboy takes an unnamed octet-stream part for a file, and
    // Starlette does not, so such a part is read as a field.
    if (sink !== undefined && stream !== undefined && info.filename !== undefined) {
      const { filename } = info;
      stored.push(
        sink(part, { contentType }).then(
          async (file) => {
            const part = new FilePart(filename, contentType, { stored: file });
            if (!accept(name, part, false)) await part.discard();
          },
          (error: unknown) => {
            // The rest of the part still has to be read, or the form never ends.
            part.resume();
            fail(error instanceof Error ? error : new Error(String(error)));
          },
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    part.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    });
    part.on('end', () => {
      const content = joined(chunks, size);
      if (info.filename === undefined) {
        if (size > limits.maxFieldBytes) fail(partTooLarge());
        else accept(name, content.toString('utf8'), false);
      } else {
        accept(name, new FilePart(info.filename, contentType, { content }), false);
      }
    });
  });
  parser.on('fieldsLimit', () => {
    fail(
      new BadRequestError(
        `Too many fields. Maximum number of fields is ${String(limits.maxFields)}.`,
      ),
    );
  });
  parser.on('filesLimit', () => {
    fail(
      new BadRequestError(`Too many files. Maximum number of files is ${String(limits.maxFiles)}.`),
    );
  });

  await new Promise<void>((resolve) => {
    parser.once('close', resolve);
    // A cut-off body or a malformed part header: FastAPI's generic words for it.
    parser.once('error', () => {
      fail(new BadRequestError('There was an error parsing the body'));
      resolve();
    });
    if (stream === undefined) parser.end(bodyBytes(event));
    else {
      stream.once('error', () => {
        parser.destroy(new Error('The request body broke off'));
      });
      stream.pipe(parser);
    }
  });
  await Promise.all(stored);
  if (failure !== undefined) {
    await discardFiles(form);
    throw failure;
  }
  return form;
}
