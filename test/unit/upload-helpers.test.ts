import { describe, expect, it } from 'vitest';
import { decodeEventKey, encodeEventKey } from '#shared/aws/s3-event-key.ts';
import {
  directUploadObjectKey,
  parseDirectUploadObjectKey,
  userFileObjectKey,
} from '#shared/data/keys.ts';
import { metadataValue } from '#shared/direct-uploads/start-direct-upload.ts';
import { attachmentDisposition } from '#shared/http/content-disposition.ts';
import { FilePart, readForm } from '#shared/http/multipart-form.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/upload-form-limits.ts';
import { uploadForm } from '#test/support/multipart.ts';

const event = (form: { body: Buffer; contentType: string }) => ({
  body: form.body.toString('base64'),
  isBase64Encoded: true,
  headers: { 'content-type': form.contentType },
});

describe('readForm on a whole body (Lambda)', () => {
  it("hands over the file as a view of the body's own bytes, not a copy", async () => {
    const content = Buffer.alloc(3 * 1024 * 1024, 5);
    const form = await readForm(event(uploadForm(content)), UPLOAD_FORM_LIMITS);
    const file = form.file as FilePart;
    expect(file).toBeInstanceOf(FilePart);
    expect(file.size).toBe(content.length);
    expect(file.content?.equals(content)).toBe(true);
    expect(file.content?.buffer.byteLength).toBeGreaterThan(content.length);
    expect(form).toMatchObject({ name: 'report.pdf', type: 'deck' });
  });

  it('takes the part content type, and octet-stream for one that is none', async () => {
    const form = await readForm(event(uploadForm('x')), UPLOAD_FORM_LIMITS);
    expect((form.file as FilePart).contentType).toBe('application/octet-stream');
  });
});

describe('object keys', () => {
  it('round-trip, and nothing else parses', () => {
    expect(parseDirectUploadObjectKey(directUploadObjectKey(42, 7))).toEqual({
      userId: 42,
      fileId: 7,
    });
    for (const key of [
      'uploads/42/07',
      'uploads/0/1',
      'uploads/42/7/x',
      userFileObjectKey(42, 7),
      'uploads/99999999999999999/1',
    ]) {
      expect(parseDirectUploadObjectKey(key)).toBeUndefined();
    }
  });
});

describe('download names and metadata', () => {
  it('gives an ASCII fallback and the exact name in UTF-8 (RFC 6266)', () => {
    expect(attachmentDisposition('a "b"\\c.pdf')).toBe(
      `attachment; filename="a _b__c.pdf"; filename*=UTF-8''a%20%22b%22%5Cc.pdf`,
    );
    expect(attachmentDisposition('日本.pdf')).toBe(
      `attachment; filename="__.pdf"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.pdf`,
    );
  });

  it('keeps printable ASCII metadata as it is and RFC 2047-encodes the rest', () => {
    expect(metadataValue('plain name.pdf')).toBe('plain name.pdf');
    expect(metadataValue('line\nbreak')).toBe('=?UTF-8?B?bGluZQpicmVhaw==?=');
    expect(metadataValue('é'.repeat(255)).length).toBeLessThan(2048);
  });
});

describe('S3 event keys', () => {
  it('round-trip in S3 notification form, and a bad encoding reads as undefined', () => {
    const key = 'users/1/files/a b+c%é';
    expect(encodeEventKey(key)).toBe('users/1/files/a+b%2Bc%25%C3%A9');
    expect(decodeEventKey(encodeEventKey(key))).toBe(key);
    expect(decodeEventKey('users/1/files/%zz')).toBeUndefined();
  });
});
