/** The operator's commands on the access trail: `access …`. */
import * as z from 'zod';
import type { AccessEntry } from '#shared/access-trail/access-entry.ts';
import {
  ACCESS_ENTRY_FIELDS,
  type AccessEntryBody,
  readInstant,
  toAccessEntryBody,
} from '#shared/access-reports/api/access-entry.ts';
import { exportTrail } from '#shared/access-reports/export-trail.ts';
import { idFlag } from '../cli-flags.ts';
import { defineCommand, Streamed } from '../operator-command.ts';

const FORMATS = ['csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

/** An ISO 8601 date and time with its zone, or a date; optional. */
const instantFlag = (flag: string) =>
  z
    .string()
    .transform((value, ctx) => {
      const instant = readInstant(value);
      if (instant !== undefined) return instant;
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `--${flag} must be an ISO 8601 date, or a date and time with its time zone, got "${value}"`,
      });
      return z.NEVER;
    })
    .optional();

const formatFlag = z.enum(FORMATS, {
  error: (issue) =>
    issue.input === undefined
      ? '--format is required'
      : `--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(issue.input)}`,
});

/**
 * A CSV cell (RFC 4180): empty for null; quoted when it holds a comma, a quote or a line
 * break. Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage
 * return first) is kept as text by a leading `'`, as OWASP's CSV injection advice has it: a
 * user agent is the caller's to choose.
 */
function csvCell(value: AccessEntryBody[keyof AccessEntryBody]): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const LINES: Record<Format, { header?: string; line: (body: AccessEntryBody) => string }> = {
  csv: {
    header: `${ACCESS_ENTRY_FIELDS.join(',')}\r\n`,
    line: (body) => `${ACCESS_ENTRY_FIELDS.map((field) => csvCell(body[field])).join(',')}\r\n`,
  },
  jsonl: { line: (body) => `${JSON.stringify(body)}\n` },
};

/** What the output is handed at once: many lines, not one write each. */
const CHUNK_CHARACTERS = 64 * 1024;

/** The entries as lines of the format, gathered into chunks. */
async function* linesOf(entries: AsyncIterable<AccessEntry>, format: Format) {
  const { header, line } = LINES[format];
  let chunk = header ?? '';
  for await (const entry of entries) {
    chunk += line(toAccessEntryBody(entry));
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

export const accessExportCommand = defineCommand({
  name: 'access export',
  usage:
    'access export --group <id> [--deal <id>] [--since <time>] [--until <time>] --format csv|jsonl',
  summary: "Write a group's access trail to stdout for auditors, oldest first.",
  help: {
    flags: [
      ['--group <id>', 'an existing group'],
      [
        '--deal <id>',
        "one of its deals alone; without it, every deal's and its membership changes",
      ],
      ['--since <time>', 'entries at or after this time: ISO 8601 with its zone, or a date'],
      ['--until <time>', 'entries before this time'],
      ['--format csv|jsonl', 'CSV with a header row, or one JSON object a line'],
    ],
    note:
      `Columns and fields, in this order: ${ACCESS_ENTRY_FIELDS.join(', ')}; empty (CSV) or ` +
      'null (JSON) where one does not apply. Streamed as it is read, whatever its size; ' +
      'nothing else goes to stdout. A refusal (no such group or deal) writes nothing.',
  },
  schema: z.object({
    group: idFlag('group'),
    deal: idFlag('deal').optional(),
    since: instantFlag('since'),
    until: instantFlag('until'),
    format: formatFlag,
  }),
  run: async ({ groups, trailQueries }, input) => {
    const entries = await exportTrail(
      { groups, trail: trailQueries },
      {
        groupId: input.group,
        ...(input.deal === undefined ? {} : { dealId: input.deal }),
        window: {
          ...(input.since === undefined ? {} : { since: input.since }),
          ...(input.until === undefined ? {} : { until: input.until }),
        },
      },
    );
    return new Streamed(linesOf(entries, input.format));
  },
});
