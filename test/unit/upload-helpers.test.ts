import { describe, expect, it } from 'vitest';
import { decodeEventKey, encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import {
  directUploadObjectKey,
  parseDirectUploadObjectKey,
  userFileObjectKey,
} from '#shared/storage/keys.ts';
import { metadataValue } from '#shared/direct-uploads/start-direct-upload.ts';
import { attachmentDisposition } from '#shared/blobs/adapters/content-disposition.ts';
import { FilePart } from '#shared/http/fastapi/file-part.ts';
import { readForm } from '#shared/http/fastapi/multipart-form.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/api/upload-form-limits.ts';
import { uploadForm } from '#test/support/multipart.ts';

const event = (form: { body: Buffer; contentType: string }) => ({
  body: form.body.toString('base64'),
  isBase64Encoded: true,
  headers: { 'content-type': form.contentType },
});

describe('readForm on a whole body', () => {
  it("hands over the file as a view of the body's own bytes, not a copy", () => {
    const content = Buffer.alloc(3 * 1024 * 1024, 5);
    const form = readForm(event(uploadForm(content)), UPLOAD_FORM_LIMITS);
    const file = form.file as FilePart;
    expect(file).toBeInstanceOf(FilePart);
    expect(file.size).toBe(content.length);
    expect(file.content.equals(content)).toBe(true);
    expect(file.content.buffer.byteLength).toBeGreaterThan(content.length);
    expect(form).toMatchObject({ name: 'report.pdf', type: 'deck' });
  });

  it('takes the part content type, and octet-stream for one that is none', () => {
    const form = readForm(event(uploadForm('x')), UPLOAD_FORM_LIMITS);
    expect((form.file as FilePart).contentType).toBe('application/octet-stream');
  });
});

/** A multipart body from raw part headers and values, with boundary XB. */
const raw = (parts: readonly (readonly [string, string])[], before = '', after = '--XB--\r\n') => ({
  body: Buffer.from(
    before +
      parts.map(([headers, value]) => `--XB\r\n${headers}\r\n\r\n${value}\r\n`).join('') +
      after,
    'latin1',
  ),
  contentType: 'multipart/form-data; boundary=XB',
});
const NAME = ['Content-Disposition: form-data; name="name"', 'a.pdf'] as const;
const TYPE = ['Content-Disposition: form-data; name="type"', 'deck'] as const;
const fileOf = (params: string) =>
  [`Content-Disposition: form-data; name="file"${params}`, 'data'] as const;
const read = (form: { body: Buffer; contentType: string }) => {
  try {
    const fields = readForm(event(form), UPLOAD_FORM_LIMITS);
    return Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [
        key,
        value instanceof FilePart
          ? { filename: value.filename, bytes: value.content.toString() }
          : value,
      ]),
    );
  } catch (error) {
    return {
      error: (error as { statusCode?: number }).statusCode,
      detail: (error as Error).message,
    };
  }
};
const INVALID = { error: 400, detail: 'Invalid multipart data.' };
const NO_NAME = {
  error: 400,
  detail: 'The Content-Disposition header field "name" must be provided.',
};

// Each row is what Starlette 1.7.0 with python-multipart 0.0.32 made of the same bytes.
describe('readForm reads multipart framing as python-multipart does', () => {
  it.each([
    [
      'filename="" marks a file',
      raw([fileOf('; filename=""'), NAME, TYPE]),
      { file: { filename: '', bytes: 'data' }, name: 'a.pdf', type: 'deck' },
    ],
    [
      'filename*= alone is no file (RFC 7578)',
      raw([fileOf("; filename*=UTF-8''a.pdf"), NAME, TYPE]),
      { file: 'data', name: 'a.pdf', type: 'deck' },
    ],
    [
      'filename wins over filename*',
      raw([fileOf('; filename="a"; filename*=UTF-8\'\'b')]),
      { file: { filename: 'a', bytes: 'data' } },
    ],
    [
      'a quoted ; and an escaped quote',
      raw([fileOf('; filename="a;b \\"c\\""')]),
      { file: { filename: 'a;b "c"', bytes: 'data' } },
    ],
    [
      'a Windows path as filename',
      raw([fileOf('; filename="C:\\\\dir\\\\x.pdf"')]),
      { file: { filename: 'x.pdf', bytes: 'data' } },
    ],
    [
      'a part without a name',
      raw([['Content-Disposition: form-data; filename="a"', 'x']]),
      NO_NAME,
    ],
    ['a part without headers', raw([['', 'x']]), NO_NAME],
    [
      'another disposition type, an unquoted name, a header in any case',
      raw([['content-DISPOSITION: attachment; name=name', 'a.pdf']]),
      { name: 'a.pdf' },
    ],
    ['text before the first boundary', raw([NAME], 'junk\r\n'), INVALID],
    [
      'line breaks before it, and what follows them up to a hyphen',
      raw([NAME], '\r\nskipped'),
      { name: 'a.pdf' },
    ],
    ['spaces after a boundary', { ...raw([NAME]), body: Buffer.from('--XB  \r\n') }, INVALID],
    [
      'LF line ends',
      { ...raw([NAME]), body: Buffer.from(raw([NAME]).body.toString().replace(/\r\n/g, '\n')) },
      INVALID,
    ],
    [
      'a header line without a colon',
      raw([['bogus header\r\nContent-Disposition: form-data; name="name"', 'a.pdf']]),
      INVALID,
    ],
    ['an empty body', { ...raw([]), body: Buffer.alloc(0) }, {}],
    ['a blank body', { ...raw([]), body: Buffer.from('   \r\n') }, INVALID],
    [
      'no closing delimiter: the part cut off is dropped',
      raw(
        [NAME, TYPE],
        '',
        '--XB\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\ndat',
      ),
      { name: 'a.pdf', type: 'deck' },
    ],
    ['the closing delimiter alone', { ...raw([]), body: Buffer.from('--XB--\r\n') }, {}],
    [
      'anything after the closing delimiter',
      raw(
        [NAME],
        '',
        '--XB--\r\n--XB\r\nContent-Disposition: form-data; name="type"\r\n\r\ndeck\r\n--XB--',
      ),
      { name: 'a.pdf' },
    ],
    [
      'the delimiter inside a value',
      raw([['Content-Disposition: form-data; name="type"', 'de\r\n--XBck']]),
      { type: 'de\r\n--XBck' },
    ],
    [
      'a delimiter followed by neither CRLF nor -- inside a file',
      raw([
        ['Content-Disposition: form-data; name="file"; filename="a"', 'ab\r\n--XB-Q\r\n--XB\rx'],
      ]),
      { file: { filename: 'a', bytes: 'ab\r\n--XB-Q\r\n--XB\rx' } },
    ],
    [
      'a body that ends just after a delimiter',
      {
        ...raw([]),
        body: Buffer.from('--XB\r\nContent-Disposition: form-data; name="name"\r\n\r\na\r\n--XB\r'),
      },
      {},
    ],
    [
      'a first delimiter followed by a single hyphen',
      { ...raw([]), body: Buffer.from('--XB-x') },
      INVALID,
    ],
    [
      'Latin-1 bytes that are not UTF-8',
      raw([['Content-Disposition: form-data; name="name"', '\xe9.pdf']]),
      { name: 'é.pdf' },
    ],
    [
      'a part named __proto__',
      raw([['Content-Disposition: form-data; name="__proto__"', 'x']]),
      Object.fromEntries([['__proto__', 'x']]),
    ],
    [
      'an empty boundary',
      { ...raw([NAME]), contentType: 'multipart/form-data; boundary=' },
      INVALID,
    ],
    [
      'no boundary',
      { ...raw([NAME]), contentType: 'multipart/form-data' },
      { error: 400, detail: 'Missing boundary in multipart.' },
    ],
    [
      'a quoted boundary',
      { ...raw([NAME]), contentType: 'multipart/form-data; boundary="XB"' },
      { name: 'a.pdf' },
    ],
  ])('%s', (_, form, expected) => {
    expect(read(form)).toEqual(expected);
  });
});

describe('object keys', () => {
  it('round-trip, and nothing else parses', () => {
    expect(parseDirectUploadObjectKey(directUploadObjectKey(42, 7))).toEqual({
      userId: 42,
      fileId: 7,
    });
    for (const key of [
      'uploads/42/07',
      'uploads/0/1',
      'uploads/42/7/x',
      userFileObjectKey(42, 7),
      'uploads/99999999999999999/1',
    ]) {
      expect(parseDirectUploadObjectKey(key)).toBeUndefined();
    }
  });
});

describe('download names and metadata', () => {
  it('gives an ASCII fallback and the exact name in UTF-8 (RFC 6266)', () => {
    expect(attachmentDisposition('a "b"\\c.pdf')).toBe(
      `attachment; filename="a _b__c.pdf"; filename*=UTF-8''a%20%22b%22%5Cc.pdf`,
    );
    expect(attachmentDisposition('日本.pdf')).toBe(
      `attachment; filename="__.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`,
    );
  });

  it('keeps printable ASCII metadata as it is and RFC 2047-encodes the rest', () => {
    expect(metadataValue('plain name.pdf')).toBe('plain name.pdf');
    expect(metadataValue('line\nbreak')).toBe('=?UTF-8?B?bGluZQpicmVhaw==?=');
    expect(metadataValue('é'.repeat(255)).length).toBeLessThan(2048);
  });
});

describe('S3 event keys', () => {
  it('round-trip in S3 notification form, and a bad encoding reads as undefined', () => {
    const key = 'users/1/files/a b+c%é';
    expect(encodeEventKey(key)).toBe('users/1/files/a+b%2Bc%25%C3%A9');
    expect(decodeEventKey(encodeEventKey(key))).toBe(key);
    expect(decodeEventKey('users/1/files/%zz')).toBeUndefined();
  });
});
