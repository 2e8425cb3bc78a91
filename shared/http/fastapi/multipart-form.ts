/**
 * FastAPI parity: how FastAPI reads a `Form`/`File` body. Mirrors Starlette 1.7.0
 * `starlette/formparsers.py` (`MultiPartParser`, `FormParser`: the form it builds and the 400s it
 * answers) and python-multipart 0.0.32 `python_multipart/multipart.py` (`MultipartParser`'s
 * framing and limits, `parse_options_header`, `_parseparam`, `QuerystringParser`), with
 * CPython 3.11.7's `urllib.parse.unquote_plus`. busboy cannot take its place: ADR 0008.
 * Reference: Starlette 1.7.0, python-multipart 0.0.32, CPython 3.11.7 (docs/fastapi-parity.md).
 */

import { type ApiEvent, bodyBytes } from '../api-event.ts';
import { contentTypeOf, mediaType } from './content-type.ts';
import { FilePart, type FormValue } from './file-part.ts';
import { BadRequestError, PayloadTooLargeError } from '../http-errors.ts';

export interface FormLimits {
  /** Largest file part, in bytes; one byte more is a 413. */
  readonly maxFileBytes: number;
  readonly fileTooLargeMessage: string;
  /**
   * Largest plain field, in bytes (Starlette's `max_part_size`): a multipart field's value,
   * or an urlencoded field's name and value as sent.
   */
  readonly maxFieldBytes: number;
  readonly maxFields: number;
  readonly maxFiles: number;
}

/** python-multipart's parse errors, as Starlette answers every one of them. */
const invalid = () => new BadRequestError('Invalid multipart data.');

const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;
/** RFC 9110 token characters: what python-multipart allows in a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CRLF = Buffer.from('\r\n');

/**
 * python-multipart 0.0.32's own limits, which Starlette leaves at their defaults: header
 * lines in one part, bytes in one header line (name, colon, spaces and value; the CRLF not
 * counted), bytes in the boundary.
 */
const MAX_HEADER_COUNT = 8;
const MAX_HEADER_LINE_BYTES = 4096 + 128;
const MAX_BOUNDARY_BYTES = 256;

/** Starlette's `_user_safe_decode`: UTF-8, or Latin-1 for bytes that are not. */
function safeDecode(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** Python's `str.isspace` over Latin-1, the text headers are read as. */
const PYTHON_SPACE = new Set('\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0');
const isPythonSpace = (c: string | undefined) => c !== undefined && PYTHON_SPACE.has(c);

function lstrip(text: string): string {
  let start = 0;
  while (isPythonSpace(text[start])) start++;
  return text.slice(start);
}

function rstrip(text: string): string {
  let end = text.length;
  while (end > 0 && isPythonSpace(text[end - 1])) end--;
  return text.slice(0, end);
}

const strip = (text: string) => lstrip(rstrip(text));

/** `"` less `\"` in `text[from, to)`: how python-multipart weighs quotes, escapes unseen. */
function quoteWeight(text: string, from: number, to: number): number {
  let weight = 0;
  for (let i = from; i < to; i++) {
    if (text[i] === '"' && !(i > from && text[i - 1] === '\\')) weight++;
  }
  return weight;
}

/**
 * python-multipart's `_parseparam` (CPython's `email.message._parseparam`): the segments
 * between semicolons, but a segment whose quotes are unbalanced runs on to the next
 * semicolon. It counts `"` less `\"`, with no notion of an escaped backslash, so in
 * `filename="a\\"; name="f"` the quote stays open and swallows `name`.
 */
function splitParams(value: string): string[] {
  const text = `;${value}`;
  const segments: string[] = [];
  let start = 0;
  while (text[start] === ';') {
    start++;
    let end = text.indexOf(';', start);
    let weight = 0;
    for (let from = start; end !== -1; from = end, end = text.indexOf(';', end + 1)) {
      weight += quoteWeight(text, from, end);
      if (weight % 2 === 0) break;
    }
    if (end === -1) end = text.length;
    const segment = text.slice(start, end);
    const at = segment.indexOf('=');
    segments.push(
      strip(
        at === -1
          ? segment
          : `${rstrip(segment.slice(0, at)).toLowerCase()}=${lstrip(segment.slice(at + 1))}`,
      ),
    );
    start = end;
  }
  return segments;
}

/**
 * python-multipart's `parse_options_header`: `value; key=val; key="quoted"`. A key without
 * `=` keeps its case; RFC 2231 `key*=` parameters are ignored (RFC 7578 forbids them in
 * forms), so `filename*` alone names no file.
 */
export function parseOptionsHeader(value: string): {
  readonly value: string;
  readonly params: ReadonlyMap<string, string>;
} {
  const params = new Map<string, string>();
  if (!value.includes(';')) return { value: strip(value.toLowerCase()), params };
  const [head = '', ...segments] = splitParams(value);
  for (const segment of segments) {
    const at = segment.indexOf('=');
    const key = at === -1 ? segment : segment.slice(0, at);
    let val = at === -1 ? '' : segment.slice(at + 1);
    if (key.includes('*')) continue;
    if (val.length >= 2 && val.startsWith('"') && val.endsWith('"')) {
      val = val.slice(1, -1).replaceAll('\\\\', '\\').replaceAll('\\"', '"');
    }
    // Old browsers send a full Windows path as the filename.
    if (key === 'filename' && (val.slice(1, 3) === ':\\' || val.startsWith('\\\\'))) {
      val = val.split('\\').at(-1) ?? '';
    }
    params.set(key, val);
  }
  return { value: head, params };
}

interface RawPart {
  readonly headers: ReadonlyMap<string, string>;
  readonly data: Buffer;
}

/**
 * Where the first delimiter ends: `--boundary`, then CRLF (a part) or `--` (an empty form).
 * Leading line breaks are skipped, and with them anything up to the first hyphen. Undefined
 * when the body ends first.
 */
function afterFirstDelimiter(body: Buffer, dashBoundary: Buffer): number | undefined {
  let i = 0;
  if (body[0] === 0x0d || body[0] === 0x0a) {
    i = body.indexOf(0x2d);
    if (i === -1) return undefined;
  }
  if (body.length === 0) return undefined;
  for (let k = 0; k < dashBoundary.length; k++) {
    if (i + k >= body.length) return undefined;
    if (body[i + k] !== dashBoundary[k]) throw invalid();
  }
  return i + dashBoundary.length;
}

/**
 * One header line from `start`: its name (lower-cased), its value and where the next line
 * begins. The name runs to the next colon, wherever it is, and the line is measured as it is
 * read, so a body that ends inside a line past the limits fails too. Undefined when the body
 * ends first.
 */
function readHeaderLine(
  body: Buffer,
  start: number,
): { key: string; value: string; next: number } | undefined {
  const colon = body.indexOf(0x3a, start);
  if ((colon === -1 ? body.length : colon + 1) - start > MAX_HEADER_LINE_BYTES) throw invalid();
  const name = body.toString('latin1', start, colon === -1 ? body.length : colon);
  if (name !== '' && !TOKEN.test(name)) throw invalid();
  // No colon, yet a name of token characters within the limit: the body ended inside it.
  if (colon === -1) return undefined;
  if (name === '') throw invalid();
  let valueStart = colon + 1;
  while (body[valueStart] === 0x20) valueStart++;
  const valueEnd = body.indexOf(0x0d, valueStart);
  if ((valueEnd === -1 ? body.length : valueEnd) - start > MAX_HEADER_LINE_BYTES) throw invalid();
  if (valueEnd === -1 || valueEnd + 1 >= body.length) return undefined;
  if (body[valueEnd + 1] !== 0x0a) throw invalid();
  const value = body.toString('latin1', valueStart, valueEnd);
  return { key: name.toLowerCase(), value, next: valueEnd + 2 };
}

/**
 * A part's headers, from `start` to the empty line that ends them, and where its data
 * begins. Starlette keeps the last of a repeated header. Undefined when the body ends first.
 */
function readPartHeaders(
  body: Buffer,
  start: number,
): { headers: Map<string, string>; dataStart: number } | undefined {
  const headers = new Map<string, string>();
  let i = start;
  for (let lines = 1; ; lines++) {
    if (i >= body.length) return undefined;
    if (body[i] === 0x0d) {
      if (i + 1 >= body.length) return undefined;
      if (body[i + 1] !== 0x0a) throw invalid();
      return { headers, dataStart: i + 2 };
    }
    // Counted as a line begins.
    if (lines > MAX_HEADER_COUNT) throw invalid();
    const line = readHeaderLine(body, i);
    if (line === undefined) return undefined;
    headers.set(line.key, line.value);
    i = line.next;
  }
}

/**
 * Where a part's data ends: at the next delimiter followed by CRLF or `--`; any other
 * follower makes the delimiter part of the data. The end, and where the follower begins;
 * undefined when the body ends first.
 */
function findDataEnd(
  body: Buffer,
  delimiter: Buffer,
  dataStart: number,
): { end: number; follower: number } | undefined {
  let search = dataStart;
  for (;;) {
    const at = body.indexOf(delimiter, search);
    if (at === -1) return undefined;
    const after = at + delimiter.length;
    if (after + 1 >= body.length) return undefined;
    const [next, second] = [body[after], body[after + 1]];
    if ((next === 0x0d && second === 0x0a) || (next === 0x2d && second === 0x2d)) {
      return { end: at, follower: after };
    }
    search = at + 1;
  }
}

/**
 * Splits a multipart body as python-multipart's parser does, and calls `onHeaders` when a
 * part's headers are complete (where Starlette checks its name and counts it). A body that
 * ends before the closing delimiter keeps the parts it completed; a part cut off is dropped.
 * Framing it cannot read throws Starlette's 400.
 */
function splitParts(
  body: Buffer,
  boundary: string,
  onHeaders: (headers: ReadonlyMap<string, string>) => void,
  onPart: (part: RawPart) => void,
): RawPart[] {
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  const delimiter = Buffer.concat([CRLF, dashBoundary]);
  const parts: RawPart[] = [];
  // After each delimiter: `--`, the closing one; CRLF, a part follows.
  let i = afterFirstDelimiter(body, dashBoundary);
  while (i !== undefined && i + 1 < body.length) {
    if (body[i] === 0x2d && body[i + 1] === 0x2d) break;
    if (body[i] !== 0x0d || body[i + 1] !== 0x0a) throw invalid();
    const head = readPartHeaders(body, i + 2);
    if (head === undefined) break;
    onHeaders(head.headers);
    const data = findDataEnd(body, delimiter, head.dataStart);
    if (data === undefined) break;
    const part = { headers: head.headers, data: body.subarray(head.dataStart, data.end) };
    onPart(part);
    parts.push(part);
    i = data.follower;
  }
  return parts;
}

/** The form of a multipart body, checked part by part as Starlette checks it. */
function readMultipart(body: Buffer, contentType: string, limits: FormLimits) {
  const { params } = parseOptionsHeader(contentType);
  const boundary = params.get('boundary');
  if (boundary === undefined) throw new BadRequestError('Missing boundary in multipart.');
  // python-multipart refuses it before reading the body, so even an empty one.
  if (boundary.length > MAX_BOUNDARY_BYTES) throw invalid();
  let files = 0;
  let fields = 0;
  const dispositionOf = (headers: ReadonlyMap<string, string>) =>
    parseOptionsHeader(headers.get('content-disposition') ?? '').params;
  const onHeaders = (headers: ReadonlyMap<string, string>) => {
    const disposition = dispositionOf(headers);
    if (!disposition.has('name')) {
      throw new BadRequestError('The Content-Disposition header field "name" must be provided.');
    }
    if (disposition.has('filename')) {
      if (++files > limits.maxFiles) {
        throw new BadRequestError(
          `Too many files. Maximum number of files is ${String(limits.maxFiles)}.`,
        );
      }
    } else if (++fields > limits.maxFields) {
      throw new BadRequestError(
        `Too many fields. Maximum number of fields is ${String(limits.maxFields)}.`,
      );
    }
  };
  const onPart = ({ headers, data }: RawPart) => {
    const isFile = dispositionOf(headers).has('filename');
    if (!isFile && data.byteLength > limits.maxFieldBytes) {
      throw new BadRequestError(
        `Part exceeded maximum size of ${String(Math.floor(limits.maxFieldBytes / 1024))}KB.`,
      );
    }
    if (isFile && data.byteLength > limits.maxFileBytes) {
      throw new PayloadTooLargeError(limits.fileTooLargeMessage);
    }
  };
  const parts = splitParts(body, boundary, onHeaders, onPart);
  // Part names are the client's: `__proto__` must be a part like any other.
  const form = Object.create(null) as Record<string, FormValue>;
  for (const { headers, data } of parts) {
    const disposition = dispositionOf(headers);
    const name = safeDecode(Buffer.from(disposition.get('name') ?? '', 'latin1'));
    const filename = disposition.get('filename');
    if (filename === undefined) {
      form[name] = safeDecode(data);
      continue;
    }
    const type = parseOptionsHeader(headers.get('content-type') ?? '').value;
    form[name] = new FilePart(
      safeDecode(Buffer.from(filename, 'latin1')),
      MEDIA_TYPE.test(type) && type.length <= 255 ? type : 'application/octet-stream',
      data,
    );
  }
  return form;
}

const LENIENT_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** `%XX` escapes as their bytes; anything else, a malformed escape too, as it stands. */
function percentDecoded(ascii: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < ascii.length; i++) {
    const hex = ascii.slice(i + 1, i + 3);
    if (ascii[i] === '%' && HEX_PAIR.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(ascii.charCodeAt(i));
  }
  return Buffer.from(bytes);
}

/**
 * Python's `unquote_plus`, which Starlette applies to each name and value read as Latin-1:
 * `+` is a space; in each run of ASCII, escapes become bytes read as UTF-8 (U+FFFD for what
 * is not); other characters stay. URLSearchParams differs where raw bytes meet escapes.
 */
function unquotePlus(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  if (!spaced.includes('%')) return spaced;
  return spaced.replace(/[^\u0080-\uffff]+/g, (ascii) =>
    LENIENT_UTF8.decode(percentDecoded(ascii)),
  );
}

/**
 * Reads a form body as FastAPI (Starlette with python-multipart) does: multipart and
 * urlencoded bodies are parsed, any other body is an empty form, so each required part is
 * reported missing. A part is a file when its Content-Disposition has a `filename`
 * parameter, even an empty one; a part sent twice is the last one. Past Starlette's limits
 * (ours are lower) it answers 400 in Starlette's words; a file past the size limit is a 413.
 */
export function readForm(
  event: Pick<ApiEvent, 'body' | 'isBase64Encoded' | 'headers'>,
  limits: FormLimits,
): Record<string, FormValue> {
  const contentType = contentTypeOf(event) ?? '';
  const type = mediaType(contentType);
  if (type === 'multipart/form-data') {
    return readMultipart(bodyBytes(event), contentType, limits);
  }
  const form = Object.create(null) as Record<string, FormValue>;
  if (type !== 'application/x-www-form-urlencoded') return form;
  let fields = 0;
  // Fields are split at `&` (empty ones skipped) and at their first `=`, as python-multipart's
  // querystring parser splits them, and checked before they are decoded.
  for (const field of bodyBytes(event).toString('latin1').split('&')) {
    if (field === '') continue;
    const at = field.indexOf('=');
    // Starlette's `max_part_size` here counts the name and the value as sent.
    if (field.length - (at === -1 ? 0 : 1) > limits.maxFieldBytes) {
      throw new BadRequestError(
        `Field exceeded maximum size of ${String(Math.floor(limits.maxFieldBytes / 1024))}KB.`,
      );
    }
    if (++fields > limits.maxFields) {
      throw new BadRequestError(
        `Too many fields. Maximum number of fields is ${String(limits.maxFields)}.`,
      );
    }
    form[unquotePlus(at === -1 ? field : field.slice(0, at))] = unquotePlus(
      at === -1 ? '' : field.slice(at + 1),
    );
  }
  return form;
}
