/**
 * With HOST=0.0.0.0 the object store listens on every interface too (it is authenticated), and
 * the forms and links the stage signs name its public host, so a second machine can upload
 * and download (issue 33, build 3). 127.0.0.2 stands for that host here: it is another
 * address of this machine, which a loopback-only object store would not answer on.
 */
import { describe, expect, it } from 'vitest';
import type { DirectUploadTicket, UserFileBody } from '#test/support/fastapi-bodies.ts';
import { eventually } from '#test/support/eventually.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const PUBLIC_HOST = '127.0.0.2';
const stage = useTestStage(() => ({ host: '0.0.0.0', publicHost: PUBLIC_HOST }));

describe('a stage on every interface signs for its public host', () => {
  it('hands out forms and links on the public host, which upload and download', async () => {
    const s3Port = new URL(stage().s3Endpoint).port;
    expect(stage().s3PublicEndpoint).toBe(`http://${PUBLIC_HOST}:${s3Port}`);
    expect(new URL(stage().url).hostname).toBe(PUBLIC_HOST);
    // The CLIs, on this machine, find the store on loopback.
    expect(new URL(stage().s3Endpoint).hostname).toBe('127.0.0.1');

    const started = await stage().request('/api/v1/user/me/file/upload', {
      method: 'POST',
      as: 7100,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'notes.txt', type: 'other', filesize: 5 }),
    });
    expect(started.status).toBe(201);
    const ticket = (await started.json()) as DirectUploadTicket;
    expect(ticket.url).toBe(`http://${PUBLIC_HOST}:${s3Port}/${stage().bucket}`);
    expect(await postToSignedForm(ticket, Buffer.from('hello'))).toBe(204);
    await eventually(async () => {
      const listed = await stage().request('/api/v1/user/me/file', { as: 7100 });
      return ((await listed.json()) as UserFileBody[]).some((file) => file.id === ticket.id);
    });

    const redirect = await stage().download(7100, ticket.id);
    const link = new URL(redirect.headers.get('location') ?? '');
    expect(link.host).toBe(`${PUBLIC_HOST}:${s3Port}`);
    expect(await (await fetch(link)).text()).toBe('hello');
  });

  it('listens on every interface, and still refuses what is not signed', async () => {
    const s3Port = new URL(stage().s3Endpoint).port;
    const unsigned = await fetch(`http://127.0.0.3:${s3Port}/${stage().bucket}?list-type=2`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toContain('<Code>AccessDenied</Code>');
  });
});
