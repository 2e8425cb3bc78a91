/** The operator's check that table, bucket and users' usage agree: `reconcile`. */
import * as z from 'zod';
import { reconcileStorage, type StoragePorts } from '#shared/reconcile/reconcile-storage.ts';
import { secondsFlag, switchFlag } from '../cli-flags.ts';
import { defineCommand, Findings } from '../operator-command.ts';
import type { OperatorPorts } from '../operator-ports.ts';

/**
 * What reconcile reads of a file its table says is waiting for a scan: the object's verdict
 * tag, read as the held-file commands read (the releaser), and the record again.
 */
const scanReader = (ports: OperatorPorts): NonNullable<StoragePorts['scans']> => ({
  verdictOf: async (key) => (await ports.scannedObjects).verdictOf(key),
  stillPending: async (key) => {
    const file = ports.fileScans.fileOf(key);
    const record = file === undefined ? undefined : await ports.fileScans.get(file);
    return record?.scan?.status === 'pending';
  },
});

export const reconcileCommand = defineCommand({
  name: 'reconcile',
  usage: 'reconcile [--settle-seconds <seconds>] [--verify-digests]',
  summary: "Report where the table and the bucket disagree; recount users' usage and repair drift.",
  help: {
    flags: [
      [
        '--settle-seconds <seconds>',
        'ignore writes younger than this (default 900); use 0 only on a stage with no requests under way',
      ],
      [
        '--verify-digests',
        "also read every file's object and compare its SHA-256 with the recorded one (a GET per file: slow and billed on a big bucket)",
      ],
    ],
    note:
      'Prints objects_without_records, records_without_objects, stale_notifications, ' +
      'usage_repaired, uploads_in_flight, objects_settling, checked and clean; on a stage ' +
      'that scans also verdicts_unrecorded and verdicts_unreadable; with --verify-digests also digest_mismatches, ' +
      'digests_unreadable, digests_verified and digests_unrecorded. ' +
      "It writes only users' usage items, where their count had drifted or was never " +
      'made; every other repair is left to the operator. Exit 0 when clean, 3 when it ' +
      'found something.',
  },
  schema: z.object({
    'settle-seconds': secondsFlag('settle-seconds'),
    'verify-digests': switchFlag(),
  }),
  run: async (ports, input) => {
    const verifyDigests = input['verify-digests'];
    const digests = verifyDigests ? await ports.digests : undefined;
    const report = await reconcileStorage(
      {
        ...ports.storage,
        usage: ports.usage,
        ...(digests === undefined ? {} : { digest: (key: string) => digests.digest(key) }),
        ...(ports.scanning ? { scans: scanReader(ports) } : {}),
      },
      { settleSeconds: input['settle-seconds'] ?? 900, verifyDigests },
    );
    return report.clean ? report : new Findings(report);
  },
});
