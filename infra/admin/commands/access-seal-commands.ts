/** The operator's seal of the access trail and its check: `access seal`, `access verify`. */
import * as z from 'zod';
import {
  SEAL_GRACE_SECONDS,
  SEAL_PERIOD_MINUTES,
  sealAccessTrail,
  type SealResult,
} from '#shared/access-trail/seal-access-trail.ts';
import {
  type EntryFinding,
  verifyAccessTrail,
  type VerifyReport,
} from '#shared/access-trail/verify-access-trail.ts';
import { secondsFlag } from '../cli-flags.ts';
import { defineCommand, Findings } from '../operator-command.ts';
import type { OperatorPorts } from '../operator-ports.ts';

/** An ISO 8601 date or date-time (with its zone), as the instant it names in UTC. */
const instantFlag = (flag: string) =>
  z
    .string()
    .refine(
      (value) =>
        z.iso.date().safeParse(value).success ||
        z.iso.datetime({ offset: true }).safeParse(value).success,
      {
        error: (issue) =>
          `--${flag} must be an ISO 8601 date or time (2026-12-01, 2026-12-01T09:30:00Z), got "${String(issue.input)}"`,
      },
    )
    .transform((value) => new Date(value).toISOString())
    .optional();

const sealPorts = (ports: OperatorPorts) => ({
  trail: ports.trailHashes,
  digests: ports.trailDigests,
});

function sealedAnswer(result: SealResult) {
  switch (result.kind) {
    case 'sealed': {
      const { digest } = result;
      return {
        outcome: result.kind,
        seq: digest.seq,
        sealed_from: digest.sealedFrom,
        sealed_through: digest.sealedThrough,
        entries: digest.entries.length,
        previous_digest_sha256: digest.previousDigestSha256,
      };
    }
    case 'up-to-date':
      return { outcome: result.kind, sealed_through: result.sealedThrough };
    case 'sealed-by-another':
      return { outcome: result.kind, seq: result.seq };
  }
}

export const accessSealCommand = defineCommand({
  name: 'access seal',
  usage: 'access seal [--grace-seconds <seconds>]',
  summary: `Seal the access trail's new entries into the next digest now, as the schedule does every ${String(SEAL_PERIOD_MINUTES)} minutes.`,
  help: {
    flags: [
      [
        '--grace-seconds <seconds>',
        `leave entries filed this recently to the next seal (default ${String(SEAL_GRACE_SECONDS)}); use 0 only on a stage with no requests under way`,
      ],
    ],
    note:
      'Seals every entry filed since the last digest (the first starts a retention ago) into ' +
      'the next one, chained to its hash, written once and never replaced. Prints outcome: ' +
      'sealed (with seq, sealed_from, sealed_through, entries, previous_digest_sha256), ' +
      'up-to-date, or sealed-by-another (a seal at the same time wrote that seq). The local ' +
      'stage has no schedule: this is its sealer.',
  },
  schema: z.object({ 'grace-seconds': secondsFlag('grace-seconds') }),
  run: async (ports, input) =>
    sealedAnswer(
      await sealAccessTrail(sealPorts(ports), {
        retentionDays: ports.trailRetentionDays,
        graceSeconds: input['grace-seconds'] ?? SEAL_GRACE_SECONDS,
      }),
    ),
});

const findingOf = ({ seq, scope, entry }: EntryFinding) => ({
  ...(seq === undefined ? {} : { seq }),
  scope,
  entry,
});

/** The report as printed: each finding, then what was checked. */
const verifiedAnswer = (report: VerifyReport) => ({
  missing_digests: report.missingDigests,
  rewritten_digests: report.rewrittenDigests,
  unreadable_digests: report.unreadableDigests,
  broken_links: report.brokenLinks,
  altered: report.altered.map(findingOf),
  removed: report.removed.map(findingOf),
  inserted: report.inserted.map(findingOf),
  digests: report.digests,
  sealed_from: report.sealedFrom,
  sealed_through: report.sealedThrough,
  entries_verified: report.entriesVerified,
  entries_expired: report.entriesExpired,
  entries_unverifiable: report.entriesUnverifiable,
  not_yet_sealed: report.notYetSealed,
  clean: report.clean,
});

export const accessVerifyCommand = defineCommand({
  name: 'access verify',
  usage: 'access verify [--since <time>]',
  summary:
    "Recompute the access trail's digest chain: every digest there, every sealed entry unchanged, none added.",
  help: {
    flags: [
      [
        '--since <time>',
        'report only digests and entries filed from this ISO 8601 date or time on (default: all)',
      ],
    ],
    note:
      'Prints each finding: missing_digests, rewritten_digests (deleted or written over: a ' +
      'version beside it, or a delete marker), unreadable_digests and broken_links (a digest ' +
      'not naming the hash of the one before, or not starting where it ended) by seq; altered, ' +
      'removed and inserted entries by scope and entry key (and the seq that sealed them). ' +
      'Then digests, sealed_from, sealed_through, entries_verified, entries_expired (sealed, ' +
      "gone after the retention, as expected), entries_unverifiable (in a missing digest's " +
      'window), not_yet_sealed and clean. Reads every digest and the whole trail. Exit 0 ' +
      'when clean, 3 when it found something.',
  },
  schema: z.object({ since: instantFlag('since') }),
  run: async (ports, input) => {
    const report = verifiedAnswer(
      await verifyAccessTrail(sealPorts(ports), {
        retentionDays: ports.trailRetentionDays,
        ...(input.since === undefined ? {} : { since: input.since }),
      }),
    );
    return report.clean ? report : new Findings(report);
  },
});
