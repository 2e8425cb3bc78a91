import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';

interface EarlyAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** 1 GiB: a body no local stage may read before it answers. */
export const ONE_GIB = 2 ** 30;

/**
 * A POST that announces a body of `announced` bytes and sends its first KiB only, and the
 * answer to it: which can only come while the rest is unsent, so a server that read the body
 * before answering never answers (and the test's own time limit ends it).
 */
export function answerBeforeBody(
  url: string,
  announced: number,
  headers: Readonly<Record<string, string>>,
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(announced) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          });
          request.destroy();
        });
      },
    );
    request.on('error', reject);
    request.write(Buffer.alloc(1024));
  });
}

/**
 * The headers of an Invoke request signed as the SDK signs one (its own signer) for `body`;
 * headers added to the result afterwards are not signed.
 */
export async function signedInvokeHeaders(
  url: string,
  body: string | Uint8Array,
  credentials: Credentials,
  headers: Readonly<Record<string, string>> = {},
): Promise<Record<string, string>> {
  const { host, hostname, pathname } = new URL(url);
  const signer = new SignatureV4({
    credentials,
    region: LOCAL_REGION,
    service: 'lambda',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname,
    path: pathname,
    query: {},
    headers: { host, 'content-type': 'application/json', ...headers },
    body,
  });
  // fetch and node:http set the same host themselves.
  const { host: _host, ...rest } = signed.headers;
  return rest;
}
