import { randomUUID } from 'node:crypto';

export interface MultipartPart {
  readonly name: string;
  readonly value: string | Buffer;
  /** Makes the part a file part, as a browser sends one. */
  readonly filename?: string;
  readonly contentType?: string;
}

/**
 * A multipart/form-data body built byte for byte, so tests control every part: duplicates,
 * names, filenames, and bodies cut short.
 */
export function multipartBody(parts: readonly MultipartPart[], boundary: string = randomUUID()) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      `form-data; name="${part.name}"` +
      (part.filename === undefined ? '' : `; filename="${part.filename}"`);
    const type = part.contentType === undefined ? '' : `\r\nContent-Type: ${part.contentType}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value) : part.value);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    body: Buffer.concat(chunks),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The contract's upload form: `file`, `name`, `type`. */
export function uploadForm(
  content: Buffer | string,
  fields: { name?: string; type?: string; filename?: string } = {},
) {
  return multipartBody([
    {
      name: 'file',
      value: content,
      filename: fields.filename ?? 'upload.bin',
      contentType: 'application/octet-stream',
    },
    { name: 'name', value: fields.name ?? 'report.pdf' },
    { name: 'type', value: fields.type ?? 'deck' },
  ]);
}
