import type { ClientRequest } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@smithy/core/checksum';
import { LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';

export interface RawAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

/** A local object store: where it is, and the credentials it takes. */
interface ObjectStore {
  readonly endpoint: string;
  readonly credentials: Credentials;
}

interface S3Request {
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The URL and headers of a request to a local object store, signed as the S3 client signs
 * one: the SDK's own signer, the stage's credentials. A body is sent unsigned
 * (`x-amz-content-sha256: UNSIGNED-PAYLOAD` in `headers`), as S3 allows.
 */
export async function signedS3Headers(
  store: ObjectStore,
  request: S3Request,
): Promise<{ url: URL; headers: Record<string, string> }> {
  const url = new URL(request.path, store.endpoint);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    url.searchParams.set(name, value);
  }
  const signer = new SignatureV4({
    credentials: store.credentials,
    region: LOCAL_REGION,
    service: 's3',
    sha256: Sha256,
    // As S3 wants it: the path signed as sent, the payload's hash in a header.
    uriEscapePath: false,
    applyChecksum: true,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: { ...request.query },
    headers: { host: url.host, ...request.headers },
  });
  const { host: _host, ...headers } = signed.headers;
  return { url, headers };
}

/** An answer as sent: its status, content type and body. */
export const rawAnswer = async (response: Response): Promise<RawAnswer> => ({
  status: response.status,
  contentType: response.headers.get('content-type'),
  body: await response.text(),
});

/** The local object store's refusal: S3's status and Code, and a Message of its own. */
export const s3Refusal = (status: number, code: string, message = code): RawAnswer => ({
  status,
  contentType: 'application/xml',
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
});

/** A signed request without a body, and its answer as sent. */
export async function signedS3Request(store: ObjectStore, request: S3Request): Promise<RawAnswer> {
  const { url, headers } = await signedS3Headers(store, request);
  return rawAnswer(await fetch(url, { method: request.method, headers }));
}

/** The status a request sent piece by piece is answered with, once the answer is read. */
export const answeredStatus = (request: ClientRequest): Promise<number> =>
  new Promise((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        resolve(response.statusCode ?? 0);
      });
    });
    request.on('error', reject);
  });
