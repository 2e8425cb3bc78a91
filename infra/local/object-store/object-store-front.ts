import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type ClientRequest,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { duplexPair, Readable, Transform, type TransformCallback } from 'node:stream';
import Busboy from 'busboy';
import {
  accessDenied,
  contentSha256Mismatch,
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
import { type DirectStore, readObjectTags } from './s3-object-tags.ts';
import { admitsDownload, heldDownload } from './s3-scan-hold.ts';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import type { Credentials } from '../sigv4-check.ts';

/**
 * S3's authentication in front of s3rver, which checks no signature and no POST policy. The
 * front owns the socket; s3rver is reached only through it, in this process, over a
 * connection that no other program can open (see `inProcessTransport`). Every request must
 * be signed with the stage's credentials (s3-request-auth.ts) or be a signed POST form
 * (s3-post-policy.ts); CORS preflights pass unsigned, and the front answers them from the
 * bucket's CORS rules as S3 does (s3-cors.ts). On a stage that scans for malware,
 * a signed GET of a scanned object also needs the tag the bucket policy asks for
 * (s3-scan-hold.ts). Refusals carry S3's XML errors (s3-errors.ts), sent once the refused
 * body is read (bounded) so every client reads the answer.
 */
export interface ObjectStoreFrontOptions {
  readonly credentials: Credentials;
  readonly region: string;
  /** The object store behind the front: s3rver's request handler (its Koa `callback()`). */
  readonly store: RequestListener;
  /** A folder of the front's own for the files of forms still arriving (object-store-server.ts). */
  readonly spool: string;
  /** The stage scans stored files: a download of one under a scanned prefix needs its tag. */
  readonly malwareScanning?: boolean;
  /**
   * The bucket's CORS rules, the data stack's for a deployed bucket (`bucketCorsRules`): given
   * here, not kept in the store, since the stage's allowed origins are per start.
   */
  readonly corsRules?: readonly CorsRule[];
}

export interface ObjectStoreFront {
  readonly listener: RequestListener;
  /** The store behind the front, unchecked: for the stage's own stand-ins (the scanner). */
  readonly direct: DirectStore;
  /** Ends the connections to the store still open. */
  readonly close: () => void;
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
/** Headers of one hop, which the front and s3rver each set for their own connection. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);
const endToEnd = <T>(headers: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

export function createObjectStoreFront(options: ObjectStoreFrontOptions): ObjectStoreFront {
  const transport = inProcessTransport(options.store);
  const direct = directStore(transport);
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
      } else receiveForm(transport, options, bucket, request, response);
      return;
    }
    const held = options.malwareScanning === true ? heldDownload(method, url) : undefined;
    if (
      held !== undefined &&
      !admitsDownload(await readObjectTags(direct, held.bucket, held.key))
    ) {
      refuse(request, response, accessDenied());
      return;
    }
    if (HEX_SHA256.test(auth.payloadHash)) {
      forwardCheckingHash(transport, request, response, auth.payloadHash);
    } else forward(transport, request, response, request);
  }

  return { listener, direct, close: transport.close };
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

/** Requests to s3rver from this process, past the front's checks. */
const directStore =
  (transport: Transport): DirectStore =>
  ({ method, path, body }) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const asked = transport.request({
        method,
        path,
        headers: {
          host: 'localhost',
          ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      });
      asked.on('response', resolve);
      asked.on('error', reject);
      asked.end(body);
    });

/** The bucket of a POST to a bucket's own URL with no subresource: a browser-based upload. */
function formBucket(method: string, url: string): string | undefined {
  const { path, rawQuery } = splitTarget(url);
  const form = method === 'POST' && rawQuery === '' && /^\/[^/]+\/?$/.test(path);
  return form ? bucketOf(url) : undefined;
}

const isMultipartForm = (headers: IncomingHttpHeaders) =>
  /^multipart\/form-data\s*;/i.test(headers['content-type'] ?? '');

interface Transport {
  readonly request: (options: {
    method: string;
    path: string;
    headers: Record<string, string | string[] | number | undefined>;
  }) => ClientRequest;
  readonly close: () => void;
}

/**
 * HTTP to a request handler in this process, over an in-memory stream pair handed to a
 * server that listens on nothing: no port or socket file exists for another program to reach
 * the store by, so the front's checks cannot be gone around.
 */
function inProcessTransport(listener: RequestListener): Transport {
  const inner = createServer(listener);
  return {
    request: (options) =>
      httpRequest({
        ...options,
        createConnection: () => {
          const [ours, theirs] = duplexPair();
          inner.emit('connection', theirs);
          return ours;
        },
      }),
    close: () => {
      inner.closeAllConnections();
    },
  };
}

/** The request's headers for s3rver: its own host name, so it reads the path as path-style. */
function headersFor(request: IncomingMessage): Record<string, string | string[] | undefined> {
  // The request keeps its length; without one, Node sends it chunked.
  return { ...endToEnd(request.headers), host: 'localhost' };
}

/** s3rver's answer, passed on as it is. */
function relay(answer: IncomingMessage, response: ServerResponse): void {
  response.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
  answer.pipe(response);
}

/** Sends an authenticated request on to s3rver, its body from `body`, and its answer back. */
function forward(
  transport: Transport,
  request: IncomingMessage,
  response: ServerResponse,
  body: Readable,
): ClientRequest {
  const upstream = transport.request({
    method: request.method ?? 'GET',
    path: request.url ?? '/',
    headers: headersFor(request),
  });
  upstream.on('response', (answer) => {
    relay(answer, response);
  });
  upstream.on('error', () => {
    if (!response.headersSent) response.destroy();
  });
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  body.pipe(upstream);
  return upstream;
}

class ContentHashMismatch extends Error {
  readonly refusal: S3Error;

  constructor(claimed: string, computed: string) {
    super('x-amz-content-sha256 does not match the body');
    this.refusal = contentSha256Mismatch(claimed, computed);
  }
}

/**
 * Passes a body through while hashing it, holding back its last chunk until the hash is
 * known: a body that is not the one signed never reaches s3rver whole, so it stores nothing.
 */
class HashedBody extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | undefined;
  private readonly claimed: string;

  constructor(claimed: string) {
    super();
    this.claimed = claimed;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    if (this.held !== undefined) this.push(this.held);
    this.held = chunk;
    done();
  }

  override _flush(done: TransformCallback): void {
    const computed = this.hash.digest('hex');
    if (computed !== this.claimed) {
      done(new ContentHashMismatch(this.claimed, computed));
      return;
    }
    if (this.held !== undefined) this.push(this.held);
    done();
  }
}

/** A request signed with its body's SHA-256: S3 answers XAmzContentSHA256Mismatch for another. */
function forwardCheckingHash(
  transport: Transport,
  request: IncomingMessage,
  response: ServerResponse,
  claimed: string,
): void {
  const body = new HashedBody(claimed);
  request.pipe(body);
  const upstream = forward(transport, request, response, body);
  body.on('error', (error) => {
    // The store sees its request cut short and drops the part it had.
    upstream.destroy();
    if (error instanceof ContentHashMismatch && !response.headersSent) {
      sendS3Error(response, error.refusal);
    } else if (!response.headersSent) response.destroy();
  });
}

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

/** A field name or file name in a part's header, as browsers escape them. */
const quoted = (text: string) =>
  text.replaceAll('"', '%22').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/**
 * Reads a POST form up to its file and checks it as S3 does; then counts the file as it
 * comes, and only once it is whole and of a size the policy allows sends s3rver a form of the
 * checked fields and the file. A refused form never reaches s3rver, so it stores nothing.
 */
function receiveForm(
  transport: Transport,
  options: ObjectStoreFrontOptions,
  bucket: string,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  let parser: Busboy.Busboy;
  try {
    parser = Busboy({
      headers: request.headers,
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
  /** Removes the file kept aside, unless it has gone on to s3rver. */
  let discardSpool = () => {};

  const refuseForm = (error: S3Error) => {
    if (answered) return;
    answered = true;
    // The refusal reads the rest, within bounds of its own.
    bodyLimit = Number.POSITIVE_INFINITY;
    discardSpool();
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
    discardSpool();
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
        else sendForm(check.accepted, filename, stream);
      },
      (error: unknown) => {
        console.error('[object store] could not check a form:', error);
        refuseForm(INTERNAL_ERROR);
      },
    );
  }

  /**
   * Keeps the file aside (on disk, within the policy's bound) until it is whole and its size
   * is known good; only then does s3rver get the form. A file s3rver got part of and then
   * lost would have it fail on a stream no one listens to yet.
   */
  function sendForm(accepted: AcceptedForm, filename: string, stream: Readable): void {
    if (answered || response.destroyed) return;
    let fileBytes = 0;
    const maxFileBytes = accepted.size?.max ?? MAX_POST_OBJECT_BYTES;
    // A file over the bound is counted on to its end, for the size its refusal names.
    bodyLimit = maxFileBytes + DRAIN_BYTES;
    const spooled = join(options.spool, randomUUID());
    const removeSpool = () => {
      void rm(spooled, { force: true });
    };
    let landing = false;
    // Removed once closed, not before: an open still under way would make the file again.
    const spool = createWriteStream(spooled, { mode: 0o600 }).on('close', () => {
      if (!landing) removeSpool();
    });
    discardSpool = () => {
      spool.destroy();
    };
    spool.on('error', () => {
      refuseForm(INTERNAL_ERROR);
    });
    stream.on('data', (chunk: Buffer) => {
      fileBytes += chunk.length;
      // Past the policy's bound S3 takes no more of the file; the rest is only counted,
      // for its answer (and only so far: the request's own bound ends it).
      if (answered || fileBytes > maxFileBytes) return;
      if (!spool.write(chunk)) {
        stream.pause();
        spool.once('drain', () => stream.resume());
      }
    });
    stream.on('end', () => {
      spool.end(() => {
        const wrongSize = checkFileSize(fileBytes, accepted.size);
        if (answered || wrongSize !== undefined) {
          refuseForm(wrongSize ?? INTERNAL_ERROR);
          return;
        }
        landing = true;
        discardSpool = () => {};
        const content = createReadStream(spooled);
        content.on('close', removeSpool);
        storeForm(accepted, filename, content);
      });
    });
    stream.resume();
  }

  /** The checked fields and the whole file, as a form of the front's own making, to s3rver. */
  function storeForm(accepted: AcceptedForm, filename: string, content: Readable): void {
    const boundary = `----ObjectStoreFront${randomBytes(16).toString('hex')}`;
    const upstream = transport.request({
      method: 'POST',
      path: `/${encodeURIComponent(bucket)}`,
      headers: {
        host: 'localhost',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...(request.headers.origin === undefined ? {} : { origin: request.headers.origin }),
      },
    });
    upstream.on('response', (answer) => {
      if (answered) {
        answer.resume();
        return;
      }
      answered = true;
      relay(answer, response);
    });
    upstream.on('error', () => {
      content.destroy();
      if (!answered) {
        answered = true;
        response.destroy();
      }
    });
    for (const [name, value] of accepted.fields) {
      upstream.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`,
      );
    }
    upstream.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(filename)}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    content.pipe(upstream, { end: false });
    content.on('end', () => {
      upstream.end(`\r\n--${boundary}--\r\n`);
    });
  }
}
