import type {
  IncomingHttpHeaders,
  IncomingMessage,
  RequestListener,
  ServerResponse,
} from 'node:http';
import { Readable, Transform } from 'node:stream';
import Busboy from 'busboy';
import {
  accessDenied,
  entityTooLarge,
  incorrectNumberOfFiles,
  malformedPostRequest,
  maxPostPreDataLengthExceeded,
  preconditionFailed,
  type S3Error,
  sendS3Error,
} from './s3-errors.ts';
import { type AcceptedForm, checkFileSize, checkPostForm } from './s3-post-policy.ts';
import { authenticateS3Request, splitTarget } from './s3-request-auth.ts';
import { answerS3Preflight, s3CorsHeaders } from './s3-cors.ts';
import { type BucketStore, Refused } from './bucket-store.ts';
import { answerS3, answerStoredForm, keptHeaders } from './s3-api.ts';
import { admitsDownload, heldDownload } from './s3-scan-hold.ts';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import type { Credentials } from '../sigv4-check.ts';

/**
 * S3's checks in front of the local store (bucket-store.ts, answered by s3-api.ts): the front
 * owns the socket. Every request must be signed with the stage's credentials
 * (s3-request-auth.ts) or be a signed POST form (s3-post-policy.ts); CORS preflights pass
 * unsigned, and the front answers them from the bucket's CORS rules as S3 does (s3-cors.ts).
 * On a stage that scans for malware, a signed GET of a scanned object also needs the tag the
 * bucket policy asks for (s3-scan-hold.ts). Refusals carry S3's XML errors (s3-errors.ts),
 * sent once the refused body is read (bounded) so every client reads the answer.
 */
export interface ObjectStoreFrontOptions {
  readonly credentials: Credentials;
  readonly region: string;
  readonly store: BucketStore;
  /** The stage scans stored files: a download of one under a scanned prefix needs its tag. */
  readonly malwareScanning?: boolean;
  /**
   * The bucket's CORS rules, the data stack's for a deployed bucket (`bucketCorsRules`): given
   * here, not kept in the store, since the stage's allowed origins are per start.
   */
  readonly corsRules?: readonly CorsRule[];
}

/**
 * "The form data and boundaries (excluding the contents of the file) cannot exceed 20 KB"
 * ("HTML Forms", https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html).
 */
const MAX_FORM_FIELD_BYTES = 20 * 1024;
/** What one form may hold before its file: fields and parts, each far beyond a real form. */
const MAX_FORM_FIELDS = 200;
/** S3 takes at most 5 GB in one POST or PUT. */
const MAX_POST_OBJECT_BYTES = 5 * 1024 ** 3;
/** Room for the form's fields and boundaries around its file. */
const FORM_SLACK_BYTES = 1024 * 1024;
/**
 * A refused request's body is read, and thrown away, before the answer, so the client reads
 * it (a client still sending when the connection closes sees a broken pipe or a reset, and
 * may lose the answer); past these bounds, or this long without a byte, the connection is
 * closed instead. More than the largest body the service signs a form for (50 MiB).
 */
const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 30_000;

const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** S3's answer when it fails on its side. */
const INTERNAL_ERROR: S3Error = {
  status: 500,
  code: 'InternalError',
  message: 'We encountered an internal error. Please try again.',
};
export function objectStoreListener(options: ObjectStoreFrontOptions): RequestListener {
  const listener: RequestListener = (request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('[object store] could not answer a request:', error);
      refuse(request, response, INTERNAL_ERROR);
    });
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    // S3 answers a CORS preflight from the bucket's CORS configuration, with no signature.
    if (method === 'OPTIONS') {
      const rules = bucketOf(url) === undefined ? [] : (options.corsRules ?? []);
      const answer = answerS3Preflight(rules, request.headers);
      if (answer.kind === 'refused') refuse(request, response, answer.error);
      else {
        response.writeHead(200, { ...answer.headers, 'content-length': 0 });
        response.end();
        request.resume();
      }
      return;
    }
    const cors = s3CorsHeaders(options.corsRules ?? [], method, request.headers);
    for (const [name, value] of Object.entries(cors)) response.setHeader(name, value);
    const auth = await authenticateS3Request({ method, url, headers: request.headers }, options);
    if (auth.kind === 'refused') {
      refuse(request, response, auth.error);
      return;
    }
    if (auth.kind === 'anonymous') {
      const bucket = formBucket(method, url);
      if (bucket === undefined) refuse(request, response, accessDenied());
      else if (!isMultipartForm(request.headers)) {
        refuse(
          request,
          response,
          preconditionFailed('Bucket POST must be of the enclosure-type multipart/form-data'),
        );
      } else receiveForm(options, bucket, request, response);
      return;
    }
    const held = options.malwareScanning === true ? heldDownload(method, url) : undefined;
    const tags = held === undefined ? undefined : options.store.get(held.bucket, held.key)?.tags;
    if (held !== undefined && !admitsDownload(tags === undefined ? undefined : new Map(tags))) {
      refuse(request, response, accessDenied());
      return;
    }
    const payloadHash = HEX_SHA256.test(auth.payloadHash) ? auth.payloadHash : undefined;
    await answerS3(options.store, request, response, payloadHash);
  }

  return listener;
}

/** The bucket a path-style request names: its path's first segment. */
function bucketOf(url: string): string | undefined {
  const match = /^\/([^/?]+)/.exec(splitTarget(url).path);
  try {
    return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** The bucket of a POST to a bucket's own URL with no subresource: a browser-based upload. */
function formBucket(method: string, url: string): string | undefined {
  const { path, rawQuery } = splitTarget(url);
  const form = method === 'POST' && rawQuery === '' && /^\/[^/]+\/?$/.test(path);
  return form ? bucketOf(url) : undefined;
}

const isMultipartForm = (headers: IncomingHttpHeaders) =>
  /^multipart\/form-data\s*;/i.test(headers['content-type'] ?? '');

/**
 * Answers a refusal once the client has sent its body, read (bounded) and thrown away: an
 * answer that comes while the client still sends can be lost to a reset when the connection
 * closes (`Connection: close`, a bound passed), and a busy machine makes that likely.
 */
function refuse(request: IncomingMessage, response: ServerResponse, error: S3Error): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (request.readableEnded) {
    sendS3Error(response, error);
    return;
  }
  let bytes = 0;
  const timer = setTimeout(() => request.socket.destroy(), DRAIN_MS).unref();
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DRAIN_BYTES) request.socket.destroy();
    else timer.refresh();
  });
  request.on('end', () => {
    clearTimeout(timer);
    sendS3Error(response, error);
  });
  request.resume();
}

/** A reader of the form's parts; none for a body that is no multipart form. */
function formParser(headers: IncomingHttpHeaders): Busboy.Busboy | undefined {
  try {
    return Busboy({
      headers,
      defParamCharset: 'utf8',
      // A text field named `file` is the file (`curl -F 'file=<notes.txt'`, a textarea): its
      // bytes, whole, within `bodyLimit`. The other fields' 20 KB is checked below.
      defCharset: 'latin1',
      limits: {
        fieldSize: MAX_POST_OBJECT_BYTES,
        fieldNameSize: MAX_FORM_FIELD_BYTES,
        fields: MAX_FORM_FIELDS,
        parts: MAX_FORM_FIELDS + 1,
      },
    });
  } catch {
    return undefined;
  }
}

/**
 * Reads a POST form up to its file and checks it as S3 does; then counts the file as it
 * comes, and stores it only once it is whole and of a size the policy allows. A refused form
 * stores nothing.
 */
function receiveForm(
  options: ObjectStoreFrontOptions,
  bucket: string,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const parser = formParser(request.headers);
  if (parser === undefined) {
    refuse(request, response, malformedPostRequest());
    return;
  }
  const fields: [string, string][] = [];
  let fieldBytes = 0;
  let fileSeen = false;
  let answered = false;
  /**
   * The most the request may send: its fields (the file waits while they are checked), then,
   * once the form is accepted, the file the policy allows and a drain's worth more.
   */
  let bodyLimit = MAX_FORM_FIELD_BYTES + FORM_SLACK_BYTES;
  let received = 0;
  /** Ends the file's way to the store: what arrived of it is not stored. */
  let discardFile = () => {};

  const refuseForm = (error: S3Error) => {
    if (answered) return;
    answered = true;
    // The refusal reads the rest, within bounds of its own.
    bodyLimit = Number.POSITIVE_INFINITY;
    discardFile();
    request.unpipe(counter);
    counter.unpipe(parser);
    refuse(request, response, error);
  };
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received <= bodyLimit) done(null, chunk);
      else if (fileSeen) {
        // Past the policy's bound by more than any answer is worth reading.
        request.socket.destroy();
        done();
      } else {
        // Past the fields' bound with no file part yet: if the fields so far are a form S3
        // takes, this is its file sent as a text field, held whole up to the policy's bound
        // (in memory, so DRAIN_BYTES at most). Past it, ProposedSize is what was sent so far.
        void checkPostForm({ bucket, fields, filename: '' }, options).then(
          (check) => {
            const max =
              'accepted' in check
                ? Math.min(check.accepted.size?.max ?? DRAIN_BYTES, DRAIN_BYTES)
                : -1;
            if (max < 0) refuseForm(maxPostPreDataLengthExceeded());
            else if (received > max + FORM_SLACK_BYTES) refuseForm(entityTooLarge(received, max));
            else bodyLimit = max + FORM_SLACK_BYTES;
            done(null, answered ? undefined : chunk);
          },
          () => {
            refuseForm(INTERNAL_ERROR);
            done();
          },
        );
      }
    },
  });

  response.on('close', () => {
    discardFile();
  });

  parser.on('field', (name, value, info) => {
    if (fileSeen || answered) return;
    if (name === 'file') {
      startFile('', Readable.from([Buffer.from(value, 'latin1')]));
      return;
    }
    fieldBytes += Buffer.byteLength(name) + value.length;
    if (info.nameTruncated || fieldBytes > MAX_FORM_FIELD_BYTES) {
      refuseForm(maxPostPreDataLengthExceeded());
      return;
    }
    fields.push([name, Buffer.from(value, 'latin1').toString('utf8')]);
  });
  parser.on('file', (name, stream, info) => {
    if (fileSeen || answered || name !== 'file') {
      stream.resume();
      return;
    }
    startFile(info.filename ?? '', stream);
  });
  for (const limit of ['fieldsLimit', 'partsLimit'] as const) {
    parser.on(limit, () => {
      if (!fileSeen) refuseForm(maxPostPreDataLengthExceeded());
    });
  }
  parser.on('error', () => {
    refuseForm(malformedPostRequest());
  });
  parser.on('close', () => {
    if (!fileSeen) refuseForm(incorrectNumberOfFiles());
  });
  request.pipe(counter).pipe(parser);

  function startFile(filename: string, stream: Readable): void {
    fileSeen = true;
    stream.pause();
    void checkPostForm({ bucket, fields, filename }, options).then(
      (check) => {
        if ('refused' in check) refuseForm(check.refused);
        else storeFile(check.accepted, stream);
      },
      (error: unknown) => {
        console.error('[object store] could not check a form:', error);
        refuseForm(INTERNAL_ERROR);
      },
    );
  }

  /**
   * Stores the file once whole and of a size the policy allows (the store lands nothing
   * else); past the policy's bound the rest is only counted, for the size its refusal names.
   */
  function storeFile(accepted: AcceptedForm, stream: Readable): void {
    if (answered || response.destroyed) return;
    let fileBytes = 0;
    const maxFileBytes = accepted.size?.max ?? MAX_POST_OBJECT_BYTES;
    // A file over the bound is counted on to its end (and only so far: the request's bound).
    bodyLimit = maxFileBytes + DRAIN_BYTES;
    const kept = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const room = maxFileBytes - fileBytes;
        fileBytes += chunk.length;
        done(null, room > 0 ? chunk.subarray(0, room) : undefined);
      },
    });
    discardFile = () => {
      kept.destroy();
    };
    options.store
      .put(bucket, accepted.key, stream.pipe(kept), {
        headers: keptHeaders(accepted.fields),
        event: 'ObjectCreated:Post',
        check: () => (answered ? INTERNAL_ERROR : checkFileSize(fileBytes, accepted.size)),
      })
      .then(
        (stored) => {
          if (answered) return;
          answered = true;
          answerStoredForm(response, {
            host: request.headers.host,
            bucket,
            accepted,
            etag: stored.etag,
          });
        },
        (error: unknown) => {
          refuseForm(error instanceof Refused ? error.reason : INTERNAL_ERROR);
        },
      );
  }
}
