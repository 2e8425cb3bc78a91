/**
 * Where the local stage answers otherwise than the recorded reference, on purpose. Each
 * entry names a case of `recorded.json` (`*` standing for any text) and why; the replay fails
 * on any other difference, and on an entry whose cases no longer differ. The same list, in
 * words, is docs/fastapi-parity.md.
 */
export interface DeliberateDifference {
  readonly id: string;
  readonly reason: string;
}

export const DELIBERATE_DIFFERENCES: readonly DeliberateDifference[] = [
  {
    id: 'notify/json/*-in-file-ids',
    reason:
      'NaN or Infinity where an int belongs: FastAPI fails to serialise its own 422 (a 500); ' +
      'we answer the 422 (finite_number) with input null, as 5xx is only for our faults',
  },
  {
    id: 'notify/json/lone-surrogate',
    reason:
      'A surrogate encoded in UTF-8 (which Python reads with surrogatepass) is a 400: no ' +
      'DynamoDB string or chat message can hold it; FastAPI fails later, with a 500',
  },
  {
    id: 'notify/json/escaped-lone-surrogate',
    reason:
      'A lone surrogate escaped in JSON ("\\ud800") is the 422 string_unicode Pydantic ' +
      'builds; FastAPI fails to serialise that 422 (a 500)',
  },
  {
    id: 'patch/name/lone-surrogate',
    reason:
      'A lone surrogate escaped in JSON ("\\ud800") is the 422 string_unicode Pydantic ' +
      'builds; FastAPI fails to serialise that 422 (a 500)',
  },
  {
    id: 'upload/empty-file',
    reason:
      'An empty file is a 422 bytes_too_short: S3 refuses an empty signed upload, and both ' +
      'upload paths refuse the same files',
  },
  {
    id: 'upload/file-twice',
    reason:
      'One file per upload (Starlette allows 1,000): a second file part is a 400 in ' +
      "Starlette's words, never a guess at which bytes to store",
  },
  {
    id: 'upload/file-where-name-belongs',
    reason:
      "The one-file limit answers first (400); FastAPI's 422 echoes an UploadFile's internals",
  },
  {
    id: 'upload/upper-case-media-type',
    reason:
      'Media types are case-insensitive (RFC 9110): Multipart/Form-Data is read as a form, ' +
      'where Starlette reads no form and reports every part missing',
  },
  {
    id: '*/content-type/one-with-a-comma',
    reason:
      'API Gateway joins repeated headers with commas, so one Content-Type with a bare comma ' +
      '(which RFC 9110 allows nowhere in a media type) reads as two, of which Starlette reads ' +
      'the first; FastAPI reads the one header whole: no JSON type',
  },
  {
    id: 'upload/comma-in-unquoted-boundary',
    reason:
      'An unquoted boundary=X,B reads as two Content-Type headers joined by API Gateway ' +
      '(boundary X): RFC 9110 wants a comma quoted; FastAPI takes X,B',
  },
  {
    id: 'upload/urlencoded-field-16385',
    reason:
      "An urlencoded field over our 16 KiB (name and value as sent) is a 400 in Starlette's " +
      'words; Starlette allows 1 MB',
  },
  {
    id: 'route/get-own-file',
    reason:
      "GET /api/v1/user/me/file/{file_id} is our extension (the caller's UserFile, or 404); " +
      'the reference has no GET there (405)',
  },
  {
    id: 'route/get-notify',
    reason:
      'GET …/file/notify now meets the GET route for a file id, as it would in FastAPI with ' +
      'that route: `notify` is no integer (422 int_parsing), where the reference had none (405)',
  },
];
