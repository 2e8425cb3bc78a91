/** What a malware scan of a file's bytes can find: GuardDuty's own results, word for word. */
export const SCAN_RESULTS = [
  'NO_THREATS_FOUND',
  'THREATS_FOUND',
  'UNSUPPORTED',
  'ACCESS_DENIED',
  'FAILED',
] as const;
export type ScanResult = (typeof SCAN_RESULTS)[number];

/**
 * Where a file stands with the scanner. A record without one was stored before scanning was
 * turned on. `at` orders verdicts: a scan's is its event's time, a release its own, so a
 * repeated or older event never undoes a newer fact.
 */
export type FileScan =
  | { readonly status: 'pending' }
  | { readonly status: 'scanned'; readonly result: ScanResult; readonly at: string }
  | {
      readonly status: 'released';
      readonly at: string;
      /** The operator who released it, as their credentials name them. */
      readonly by: string;
      readonly reason: string;
    };

/** The state a scan leaves a file in, in one word: what the CLI lists and the message says. */
export type ScanStanding =
  'clean' | 'released' | 'pending' | 'unscanned' | Exclude<ScanResult, 'NO_THREATS_FOUND'>;

/** The standing a file's scan gives it; no scan at all, `unscanned`. */
export function scanStandingOf(scan: FileScan | undefined): ScanStanding {
  if (scan === undefined) return 'unscanned';
  if (scan.status === 'pending' || scan.status === 'released') return scan.status;
  return scan.result === 'NO_THREATS_FOUND' ? 'clean' : scan.result;
}

/** A new file's scan, to spread into its record: pending while the stage scans, else none. */
export const newFileScan = (scanning: boolean): { readonly scan?: FileScan } =>
  scanning ? { scan: { status: 'pending' } } : {};
