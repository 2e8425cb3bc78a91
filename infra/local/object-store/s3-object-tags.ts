import type { IncomingMessage } from 'node:http';

/**
 * s3rver itself, in this process, past the front's checks (object-store-front.ts): what the
 * stage's own stand-ins reach the bucket through where AWS would let a principal through
 * that the bucket policy exempts (GuardDuty's role, reading and tagging what it scans).
 */
export type DirectStore = (request: {
  readonly method: 'GET' | 'PUT';
  /** Path-style, with its query: `/<bucket>/<key>?tagging`. */
  readonly path: string;
  readonly body?: string;
}) => Promise<IncomingMessage>;

/** An object's path-style path: each segment of its key URL-encoded. */
export const objectPath = (bucket: string, key: string): string =>
  `/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);

async function bodyOf(answer: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An object's tags (GetObjectTagging), or undefined when there is no such object. Read as
 * s3rver writes them: `<Tag><Key>…</Key><Value>…</Value></Tag>`, the text unescaped (so a
 * tag with a `<` in it reads as none).
 */
export async function readObjectTags(
  store: DirectStore,
  bucket: string,
  key: string,
): Promise<Map<string, string> | undefined> {
  const answer = await store({ method: 'GET', path: `${objectPath(bucket, key)}?tagging` });
  const xml = await bodyOf(answer);
  if (answer.statusCode === 404) return undefined;
  if (answer.statusCode !== 200) {
    throw new Error(`GetObjectTagging ${bucket}/${key}: ${String(answer.statusCode)} ${xml}`);
  }
  const tags = xml.matchAll(/<Tag><Key>([^<]*)<\/Key><Value>([^<]*)<\/Value><\/Tag>/g);
  return new Map([...tags].map(([, name = '', value = '']) => [name, value]));
}

/** Replaces an object's tags (PutObjectTagging); false when there is no such object. */
export async function writeObjectTags(
  store: DirectStore,
  bucket: string,
  key: string,
  tags: ReadonlyMap<string, string>,
): Promise<boolean> {
  const tagSet = [...tags]
    .map(
      ([name, value]) =>
        `<Tag><Key>${escapeXml(name)}</Key><Value>${escapeXml(value)}</Value></Tag>`,
    )
    .join('');
  const answer = await store({
    method: 'PUT',
    path: `${objectPath(bucket, key)}?tagging`,
    body: `<Tagging><TagSet>${tagSet}</TagSet></Tagging>`,
  });
  const text = await bodyOf(answer);
  if (answer.statusCode === 404) return false;
  if (answer.statusCode !== 200) {
    throw new Error(`PutObjectTagging ${bucket}/${key}: ${String(answer.statusCode)} ${text}`);
  }
  return true;
}
