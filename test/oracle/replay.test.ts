import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { DELIBERATE_DIFFERENCES } from './deliberate-differences.ts';

interface RecordedCase {
  readonly id: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly user: number | null;
    readonly headers: readonly (readonly [string, string])[];
    /** base64 */
    readonly body: string;
  };
  /** `status`: the body is ours to choose (a list whose content depends on state). */
  readonly compare: 'body' | 'status';
  /** Top-level fields whose values differ by nature (ids, times, tokens): presence and type. */
  readonly volatile: readonly string[];
  readonly response: {
    readonly status: number;
    /** As the reference sent it: JSON, or text. */
    readonly body: string;
    readonly location?: string;
  };
}

const recordedText = readFileSync(new URL('./recorded.json', import.meta.url), 'utf8');

/** Numbers as their source text, so 9223372036854775808 and 9223372036854776000 differ. */
const parseExact = (text: string): unknown =>
  JSON.parse(text, (_key, value, { source }) =>
    typeof value === 'number' && source !== undefined ? `#number ${source}` : value,
  );

const recorded = JSON.parse(recordedText) as {
  readonly reference: Readonly<Record<string, string>>;
  readonly cases: readonly RecordedCase[];
};

/** The reference's fixture (reference/app.py), seeded into the stage the same way. */
async function seedFixture(stage: ReturnType<ReturnType<typeof useTestStage>>) {
  const file = (userId: number, id: number) =>
    toUserFileItem({
      id,
      userId,
      name: `file ${String(id)}.pdf`,
      type: 'deck',
      createdAt: '2026-06-01T09:00:00.000Z',
      updatedAt: null,
      isArchived: false,
      filesize: 5,
      location: `s3://${stage.bucket}/users/${String(userId)}/files/${String(id)}`,
    });
  await stage.put([file(1, 101), file(1, 102), file(2, 201)]);
  await seedDeals(stage, {
    groups: [1, 2],
    members: [
      { groupId: 1, userId: 1, role: 'editor' },
      { groupId: 1, userId: 2, role: 'viewer' },
      { groupId: 2, userId: 3, role: 'editor' },
    ],
    deals: [
      { groupId: 1, dealId: 1 },
      { groupId: 1, dealId: 2 },
      { groupId: 2, dealId: 3 },
    ],
    files: [dealFile(1, 1, 11), dealFile(1, 2, 12), dealFile(2, 3, 13)],
  });
}

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly location: string | undefined;
}

/** The recorded bytes, sent as they are: only the bearer is a real token for the same user. */
function send(url: string, recordedRequest: RecordedCase['request'], token: string | undefined) {
  const body = Buffer.from(recordedRequest.body, 'base64');
  const { hostname, port } = new URL(url);
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = request(
      {
        hostname,
        port,
        method: recordedRequest.method,
        path: recordedRequest.path,
        headers: [
          'host',
          `${hostname}:${port}`,
          ...recordedRequest.headers.flat(),
          ...(token === undefined ? [] : ['authorization', `Bearer ${token}`]),
          'content-length',
          String(body.length),
        ],
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            location: response.headers.location,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const typeOf = (value: unknown) => (value === null ? 'null' : typeof value);

/** How the answer differs from the recorded one, or undefined when it does not. */
/** A body as JSON with exact numbers, or as its text when it is no JSON. */
function parsed(text: string): { readonly json: unknown } | { readonly text: string } {
  if (text === '') return { json: null };
  try {
    return { json: parseExact(text) };
  } catch {
    return { text };
  }
}

/** How the answer differs from the recorded one, or undefined when it does not. */
function difference(expected: RecordedCase, actual: Answer): string | undefined {
  const want = expected.response;
  const shown = `${actual.text.slice(0, 400)}\n      reference ${want.body.slice(0, 400)}`;
  if (actual.status !== want.status) {
    return `status ${String(actual.status)}, reference ${String(want.status)}: ${shown}`;
  }
  if (expected.compare === 'status') return undefined;
  if (want.location !== undefined) {
    const path = (location: string) => {
      const url = new URL(location, 'http://relative.invalid');
      return url.pathname + url.search;
    };
    if (path(actual.location ?? '') !== path(want.location)) {
      return `location ${String(actual.location)}, reference ${want.location}`;
    }
  }
  const [mine, theirs] = [parsed(actual.text), parsed(want.body)];
  if (!('json' in mine) || !('json' in theirs)) {
    return actual.text === want.body ? undefined : `body ${shown}`;
  }
  let got = mine.json;
  let wanted = theirs.json;
  if (expected.volatile.length > 0 && typeof got === 'object' && got !== null) {
    const ours = got as Record<string, unknown>;
    const reference = wanted as Record<string, unknown>;
    const volatile = expected.volatile.filter((name) => name in reference);
    for (const key of volatile) {
      if (!(key in ours) || typeOf(ours[key]) !== typeOf(reference[key])) {
        return `${key} is a ${typeOf(ours[key])}, reference a ${typeOf(reference[key])}: ${shown}`;
      }
    }
    const steady = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).filter(([key]) => !volatile.includes(key)));
    got = steady(ours);
    wanted = steady(reference);
  }
  try {
    expect(got).toEqual(wanted);
    return undefined;
  } catch {
    return `body ${shown}`;
  }
}

/** `*` in a listed id stands for any text. */
const matches = (pattern: string, id: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(id);

const isListed = (id: string) => DELIBERATE_DIFFERENCES.find((entry) => matches(entry.id, id));

const stage = useTestStage();

describe(`answers as the recorded reference (FastAPI ${String(recorded.reference.fastapi)})`, () => {
  it(`replays all ${String(recorded.cases.length)} recorded requests; differences only where listed`, async () => {
    expect(recorded.cases.length).toBeGreaterThanOrEqual(300);
    await seedFixture(stage());
    const tokens = new Map<number, string>();
    const tokenFor = async (user: number) => {
      const known = tokens.get(user);
      if (known !== undefined) return known;
      const fresh = await stage().token(user);
      tokens.set(user, fresh);
      return fresh;
    };
    const unexplained: string[] = [];
    const stale: string[] = [];
    const listedSeen = new Set<string>();
    for (const recordedCase of recorded.cases) {
      const { user } = recordedCase.request;
      const answer = await send(
        stage().url,
        recordedCase.request,
        user === null ? undefined : await tokenFor(user),
      );
      const found = difference(recordedCase, answer);
      const listed = isListed(recordedCase.id);
      if (listed !== undefined && found !== undefined) listedSeen.add(listed.id);
      if (found !== undefined && listed === undefined) {
        unexplained.push(`${recordedCase.id}: ${found}`);
      }
      if (found === undefined && listed !== undefined && !listed.id.includes('*')) {
        stale.push(`${recordedCase.id} is listed as a difference but answers as the reference`);
      }
    }
    const unused = DELIBERATE_DIFFERENCES.filter((entry) => !listedSeen.has(entry.id)).map(
      (entry) => `${entry.id} is listed but no case differs there`,
    );
    expect([...unexplained, ...stale, ...unused]).toEqual([]);
  });
});
