import { expect } from 'vitest';
import {
  completeUpload,
  EXAMPLE_OWNER,
  idIn,
  startUpload,
  ticketOf,
  whileHeld,
} from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';

const fileAt = (id: number) => `/api/v1/user/me/file/${String(id)}`;

export default routeFacts({
  examples: {
    alone: {
      // The owner's file, once every other situation has read it.
      'DELETE /api/v1/user/me/file/{file_id} 204': async (kit) => {
        const id = idIn(await kit.answer('POST /api/v1/user/me/file 201'));
        return kit.call('DELETE', fileAt(id), {
          as: EXAMPLE_OWNER,
          sent: { parameters: { file_id: id } },
        });
      },
      // A direct upload whose completion is held copying its bytes into place.
      'DELETE /api/v1/user/me/file/{file_id} 409': async (kit) => {
        const as = kit.newUser();
        const ticket = ticketOf(
          await startUpload(kit, as, { name: 'held.bin', type: 'other', filesize: 4 }),
        );
        return whileHeld(
          kit.holds.s3,
          (held) => held.method === 'PUT' && held.path.includes(`/users/${String(as)}/`),
          async () => {
            expect(await postToSignedForm(ticket, Buffer.from('held'))).toBe(204);
            return kit.stage.request(completeUpload(ticket.id), { method: 'POST', as });
          },
          () => kit.call('DELETE', fileAt(ticket.id), { as }),
        );
      },
    },
  },
});
