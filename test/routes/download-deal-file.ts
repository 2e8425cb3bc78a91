import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { toDealFileItem } from '#shared/storage/file-items.ts';
import { dealFileObjectKey } from '#shared/storage/keys.ts';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  type Answer,
  EXAMPLE_DEAL,
  EXAMPLE_GROUP,
  EXAMPLE_OWNER,
  exampleDealFile,
  exampleDealFilePath,
  type SituationKit,
} from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const downloadOf = (group: number, id: number) => `${exampleDealFilePath(group, id)}/download`;

/**
 * Records `file` as a new deal file is recorded on a stage that scans, then stores `bytes`,
 * which the local scanner judges; without bytes its scan stays under way.
 */
async function storeDealFile(kit: SituationKit, file: DealFile, bytes?: Buffer): Promise<void> {
  await kit.stage.put([toDealFileItem({ ...file, scan: { status: 'pending' } })]);
  if (bytes === undefined) return;
  await kit.stage.s3.send(
    new PutObjectCommand({
      Bucket: kit.stage.bucket,
      Key: dealFileObjectKey(file.groupId, file.dealId, file.id),
      Body: bytes,
    }),
  );
}

/** A viewer of a group of their own, whose deal holds a file (the example's ids) of `bytes`. */
async function viewerOfGroupWith(kit: SituationKit, bytes?: Buffer) {
  const as = kit.newUser();
  const group = kit.newGroup();
  await seedDeals(kit.stage, {
    groups: [group],
    members: [{ groupId: group, userId: as, role: 'viewer' }],
    deals: [{ groupId: group, dealId: EXAMPLE_DEAL }],
  });
  const file = exampleDealFile(group);
  await storeDealFile(kit, file, bytes);
  return { as, path: downloadOf(group, file.id) };
}

/** The download as `as`, once the malware scan has judged the file. */
const judged = (kit: SituationKit, path: string, as: number, sent?: Answer['sent']) =>
  eventually(async (): Promise<Answer | undefined> => {
    const answer = await kit.call('GET', path, { as, ...(sent === undefined ? {} : { sent }) });
    return answer.status === 409 ? undefined : answer;
  });

/** A second file of the examples' deal: 7 is the one the deal-file DELETE example removes. */
const SECOND_FILE = 8;

export default routeFacts({
  examples: {
    together: {
      // EICAR's test string, once the scan has found it.
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download 403': async (kit) => {
        const { as, path } = await viewerOfGroupWith(kit, Buffer.from(EICAR_TEST_STRING));
        return judged(kit, path, as);
      },
      // A file whose scan is under way: its bytes are not stored yet, so it stays so.
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download 409': async (kit) => {
        const { as, path } = await viewerOfGroupWith(kit);
        return kit.call('GET', path, { as });
      },
    },
    alone: {
      // The examples' deal, once the others have listed it with one file, gets a second with
      // the bytes of the owner's example upload (so its digest), then cleared by the scan.
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download 302': async (kit) => {
        const bytes = Buffer.alloc(USER_FILE_EXAMPLE.filesize, 1);
        const file = exampleDealFile(EXAMPLE_GROUP, SECOND_FILE);
        await storeDealFile(
          kit,
          {
            ...file,
            filesize: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('base64'),
          },
          bytes,
        );
        return judged(kit, downloadOf(EXAMPLE_GROUP, file.id), EXAMPLE_OWNER, {
          parameters: { group_id: EXAMPLE_GROUP, deal_id: EXAMPLE_DEAL, file_id: file.id },
        });
      },
    },
  },
});
