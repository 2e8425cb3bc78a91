import { describe, expect, it } from 'vitest';
import { FilePart } from '#shared/http/fastapi/file-part.ts';
import { HttpError } from '#shared/http/http-errors.ts';
import { parseOptionsHeader, readForm } from '#shared/http/fastapi/multipart-form.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/api/upload-form-limits.ts';

/** What the upload route answers for a body: its form, or the refusal's status and body. */
function read(body: string, contentType: string) {
  try {
    const form = readForm(
      {
        body: Buffer.from(body, 'latin1').toString('base64'),
        isBase64Encoded: true,
        headers: { 'content-type': contentType },
      },
      UPLOAD_FORM_LIMITS,
    );
    return Object.fromEntries(
      Object.entries(form).map(([key, value]) => [
        key,
        value instanceof FilePart ? { filename: value.filename } : value,
      ]),
    );
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.statusCode, body: error.body() };
  }
}

const INVALID = { status: 400, body: { detail: 'Invalid multipart data.' } };
const NO_NAME = {
  status: 400,
  body: { detail: 'The Content-Disposition header field "name" must be provided.' },
};
const MULTIPART = 'multipart/form-data; boundary=XB';
const URLENCODED = 'application/x-www-form-urlencoded';
const NAME = 'Content-Disposition: form-data; name="name"';

/** One part with these header lines, then the closing delimiter (or none: a cut-off body). */
const part = (lines: readonly string[], end = '\r\n\r\nx\r\n--XB--\r\n') =>
  `--XB\r\n${lines.join('\r\n')}${end}`;
const padLine = (bytes: number) => `X-Pad: ${'a'.repeat(bytes - 'X-Pad: '.length)}`;

// Each row is what Starlette 1.7.0 with python-multipart 0.0.32 makes of the same bytes.
describe("python-multipart's own limits", () => {
  it.each([
    ['8 header lines in a part', part([NAME, ...Array<string>(7).fill('X-A: 1')]), { name: 'x' }],
    ['9 header lines', part([NAME, ...Array<string>(8).fill('X-A: 1')]), INVALID],
    [
      'a 9th line begun as the body ends',
      part([NAME, ...Array<string>(8).fill('X-A: 1')], ''),
      INVALID,
    ],
    [
      '8 lines in each of two parts',
      part(
        [NAME, ...Array<string>(7).fill('X-A: 1')],
        `\r\n\r\nx\r\n${part([NAME.replace('name"', 'type"'), ...Array<string>(7).fill('X-A: 1')])}`,
      ),
      { name: 'x', type: 'x' },
    ],
    ['a header line of 4,224 bytes', part([NAME, padLine(4224)]), { name: 'x' }],
    ['a header line of 4,225 bytes', part([NAME, padLine(4225)]), INVALID],
    ['4,225 bytes cut off before its CRLF', part([NAME, padLine(4225)], ''), INVALID],
    ['4,224 bytes cut off before its CRLF', part([NAME, padLine(4224)], ''), {}],
    ['spaces after the colon count', part([NAME, `X-Pad:${' '.repeat(4218)}a`]), INVALID],
    ['a name of 4,224 bytes with its colon', part([NAME, `${'X'.repeat(4223)}:`]), { name: 'x' }],
    ['a name of 4,225 bytes with its colon', part([NAME, `${'X'.repeat(4224)}:`]), INVALID],
    ['a name cut off at 4,225 bytes', part([NAME, 'X'.repeat(4225)], ''), INVALID],
    ['a name cut off at 4,224 bytes', part([NAME, 'X'.repeat(4224)], ''), {}],
  ])('%s', (_, body, expected) => {
    expect(read(body, MULTIPART)).toEqual(expected);
  });

  it('takes a boundary of 256 bytes, and refuses one of 257 even with no body', () => {
    const form = (boundary: string) => `--${boundary}\r\n${NAME}\r\n\r\nx\r\n--${boundary}--\r\n`;
    const [b256, b257] = ['b'.repeat(256), 'b'.repeat(257)];
    expect(read(form(b256), `multipart/form-data; boundary=${b256}`)).toEqual({ name: 'x' });
    expect(read(form(b257), `multipart/form-data; boundary=${b257}`)).toEqual(INVALID);
    expect(read('', `multipart/form-data; boundary=${b257}`)).toEqual(INVALID);
    expect(read('', `multipart/form-data; boundary="${b256}"`)).toEqual({});
  });
});

describe('Content-Disposition parameters, split as python-multipart splits them', () => {
  it.each([
    // `"` less `\"` is odd after `"a\\"`, so the segment runs on and swallows `name`.
    ['filename="a\\\\" before name', 'form-data; filename="a\\\\"; name="file"', NO_NAME],
    [
      'filename="a\\\\" after name',
      'form-data; name="file"; filename="a\\\\"',
      { file: { filename: 'a\\' } },
    ],
    [
      'an escaped quote',
      'form-data; name="file"; filename="a\\"b;c"',
      { file: { filename: 'a"b;c' } },
    ],
    ['a key without = keeps its case', 'form-data; NAME', NO_NAME],
    ['a key with = is lower-cased', 'form-data; NAME = "name"', { name: 'x' }],
  ])('%s', (_, disposition, expected) => {
    expect(read(part([`Content-Disposition: ${disposition}`]), MULTIPART)).toEqual(expected);
  });

  it('strips what Python calls white space (JavaScript keeps \\x1c to \\x1f and \\x85)', () => {
    expect(parseOptionsHeader('\x85Form-Data\xa0')).toEqual({
      value: 'form-data',
      params: new Map(),
    });
    expect(parseOptionsHeader('form-data; name=\x1ca\x1f')).toEqual({
      value: 'form-data',
      params: new Map([['name', 'a']]),
    });
  });
});

// Starlette's FormParser given our limits (max_part_size 16 KiB, max_fields 16) answers the same.
describe('urlencoded fields', () => {
  const pad = (bytes: number) => `pad=${'p'.repeat(bytes - 3)}`;
  const FIELD_TOO_BIG = {
    status: 400,
    body: { detail: 'Field exceeded maximum size of 16KB.' },
  };

  it.each([
    ['a name and value of 16 KiB together', pad(16 * 1024), { pad: 'p'.repeat(16 * 1024 - 3) }],
    ['one byte more', pad(16 * 1024 + 1), FIELD_TOO_BIG],
    ['a name alone over 16 KiB', 'n'.repeat(16 * 1024 + 1), FIELD_TOO_BIG],
    ['a field too big after a good one', `name=a&${pad(16 * 1024 + 1)}`, FIELD_TOO_BIG],
    [
      '17 fields',
      Array.from({ length: 17 }, (_, i) => `f${String(i)}=x`).join('&'),
      { status: 400, body: { detail: 'Too many fields. Maximum number of fields is 16.' } },
    ],
    [
      'empty fields skipped, a bare name, the first = splits',
      '?a=1&&b&=&c=d=e&',
      { '?a': '1', b: '', '': '', c: 'd=e' },
    ],
    ['escapes read as UTF-8 within ASCII runs', 'a=%C3%A9+%C3\xe9%ZZ%', { a: 'é \ufffdé%ZZ%' }],
  ])('%s', (_, body, expected) => {
    expect(read(body, URLENCODED)).toEqual(expected);
  });
});
