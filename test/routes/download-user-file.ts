import { toUserFileItem } from '#shared/storage/file-items.ts';
import { EICAR_TEST_STRING } from '#infra/local/object-store/local-malware-scanner.ts';
import { dealFile } from '#test/support/deal-fixtures.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  type Answer,
  EXAMPLE_OWNER,
  idIn,
  type SituationKit,
} from '#test/support/example-situations.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const downloadOf = (id: number) => `/api/v1/user/me/file/${String(id)}/download`;

/** The download of `id` as `as`, once its malware scan is over. */
const scanned = (kit: SituationKit, as: number, id: number, parameters?: { file_id: number }) =>
  eventually(async (): Promise<Answer | undefined> => {
    const answer = await kit.call('GET', downloadOf(id), {
      as,
      ...(parameters === undefined ? {} : { sent: { parameters } }),
    });
    return answer.status === 409 ? undefined : answer;
  });

export default routeFacts({
  examples: {
    together: {
      // The owner's file, once its malware scan has cleared it.
      'GET /api/v1/user/me/file/{file_id}/download 302': async (kit) => {
        const id = idIn(await kit.answer('POST /api/v1/user/me/file 201'));
        return scanned(kit, EXAMPLE_OWNER, id, { file_id: id });
      },
      // The EICAR test file, once the scan has found it.
      'GET /api/v1/user/me/file/{file_id}/download 403': async (kit) => {
        const as = kit.newUser();
        const form = uploadForm(Buffer.from(EICAR_TEST_STRING), {
          name: 'eicar.txt',
          type: 'raw_data',
        });
        const { id } = (await (await kit.stage.upload(as, form)).json()) as { id: number };
        return scanned(kit, as, id);
      },
      // A file whose scan is under way, as the upload records it until its verdict comes.
      'GET /api/v1/user/me/file/{file_id}/download 409': async (kit) => {
        const as = kit.newUser();
        await kit.stage.put([
          toUserFileItem({ ...dealFile(0, 0, 1), userId: as, scan: { status: 'pending' } }),
        ]);
        return kit.call('GET', downloadOf(1), { as });
      },
    },
  },
});
