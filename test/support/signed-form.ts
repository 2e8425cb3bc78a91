import type { DirectUploadTicket } from './fastapi-bodies.ts';
import { multipartBody } from './multipart.ts';

/** What a browser does with a direct upload's ticket: its fields in order, then the file, to S3. */
export async function postToSignedForm(
  ticket: Pick<DirectUploadTicket, 'url' | 'fields'>,
  content: Buffer,
  filename = 'upload.bin',
): Promise<number> {
  const form = multipartBody([
    ...Object.entries(ticket.fields).map(([name, value]) => ({ name, value })),
    { name: 'file', value: content, filename },
  ]);
  const response = await fetch(ticket.url, {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  await response.arrayBuffer();
  return response.status;
}
