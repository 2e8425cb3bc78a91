/**
 * The API guide's pictures drawn from the code's own states, so they cannot drift: every node
 * of class `state` in a Mermaid block is one of the code's state names and every one is drawn;
 * a file's scan states each sit in the box whose title is what its download answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import type { DirectUpload } from '#shared/direct-uploads/direct-upload.ts';
import { type FileScan, SCAN_RESULTS, scanStandingOf } from '#shared/domain/file-scan.ts';
import type { Outcome } from '#shared/domain/outcome.ts';
import { outcomeAsHttpError } from '#shared/http/outcome-response.ts';
import { assertDownloadable } from '#shared/scanning/download-hold.ts';

const guide = readFileSync(join(REPOSITORY_ROOT, 'docs/api-guide.md'), 'utf8');

/** The Mermaid block whose first line, a comment, names `source`. */
function diagram(source: string): string {
  const blocks = [...guide.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map(([, body]) => body);
  const found = blocks.filter((body) => body?.split('\n')[1]?.trim().startsWith(`%% ${source}:`));
  expect(found, `one Mermaid block drawing ${source}`).toHaveLength(1);
  return found[0] ?? '';
}

/** Each node of class `state` (`id:::state`, `id["label"]:::state`), with its box's title. */
function drawnStates(body: string): Map<string, string> {
  const boxes: string[] = [];
  const states = new Map<string, string>();
  for (const line of body.split('\n').map((text) => text.trim())) {
    const box = /^subgraph \w+ \["([^"]*)"\]$/.exec(line);
    if (box) boxes.push(box[1] ?? '');
    else if (line === 'end') boxes.pop();
    for (const [, id = ''] of line.matchAll(/\b(\w+)(?:\["[^"]*"\])?:::state\b/g)) {
      states.set(id, boxes.at(-1) ?? '');
    }
  }
  return states;
}

/** Every scan a file can have: none, pending, released, and each of GuardDuty's results. */
const at = '2026-01-01T00:00:00.000Z';
const EVERY_SCAN: readonly (FileScan | undefined)[] = [
  undefined,
  { status: 'pending' },
  { status: 'released', at, by: 'operator', reason: 'reviewed' },
  ...SCAN_RESULTS.map((result) => ({ status: 'scanned', result, at }) as const),
];

/** What a download answers a file with this scan: a 302, or the hold's status and wait. */
function downloadAnswer(scan: FileScan | undefined): string {
  try {
    assertDownloadable(scan, true);
    return '302';
  } catch (outcome) {
    const error = outcomeAsHttpError(outcome as Outcome);
    const retryAfter = error.headers['retry-after'];
    return `${String(error.statusCode)}${retryAfter ? ` with Retry-After: ${retryAfter}` : ''}`;
  }
}

/** A direct upload's statuses: a status added to or gone from the type fails to compile. */
const UPLOAD_STATUSES: Readonly<Record<DirectUpload['status'], true>> = {
  pending: true,
  completing: true,
  rejected: true,
};

describe('the API guide’s diagrams draw the code’s own states', () => {
  it('a file’s scan: every standing, each in the box of its download’s answer', () => {
    const drawn = drawnStates(diagram('ScanStanding'));
    const answers = new Map(EVERY_SCAN.map((scan) => [scanStandingOf(scan), downloadAnswer(scan)]));
    expect([...drawn.keys()].sort()).toEqual([...answers.keys()].sort());
    for (const [standing, answer] of answers) {
      expect(drawn.get(standing), standing).toMatch(new RegExp(`^\\w+: ${answer}( to |$)`));
    }
  });

  it('the upload paths: every status of a direct upload’s record', () => {
    const drawn = drawnStates(diagram('DirectUpload status'));
    expect([...drawn.keys()].sort()).toEqual(Object.keys(UPLOAD_STATUSES).sort());
  });
});
