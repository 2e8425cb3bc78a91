/**
 * Where the local object store keeps the file of a form still arriving (issue 41, found 2):
 * in a spool folder beside its own (`<data dir>/s3-spool` under `npm start`) that only its
 * user may open, never in the system's temporary folder. A start clears what a run killed
 * mid-upload left there.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ensureBucket,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  s3ClientOptions,
  startObjectStore,
} from '#infra/local/stage/stand-ins.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { eventually } from '#test/support/eventually.ts';
import { multipartBody } from '#test/support/multipart.ts';

const BUCKET = 'spool';
const FILE_BYTES = 40 * 1024 * 1024;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Form files in the system's temporary folder, where the store kept them before. */
const inTmp = async () =>
  (await readdir(tmpdir())).filter((name) => name.startsWith('object-store-form-'));

const client = (endpoint: string, credentials: Credentials) =>
  new S3Client({ ...s3ClientOptions(endpoint), region: LOCAL_REGION, credentials });

/** The store behind its front in a process of its own, as `npm start` runs it: one to kill. */
async function storeProcess(directory: string) {
  const child = spawn(
    process.execPath,
    [join(REPOSITORY_ROOT, 'test/bench/object-store-process.ts'), directory],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const announced = JSON.parse(line) as { endpoint: string; secretAccessKey: string };
  const credentials = {
    accessKeyId: LOCAL_CREDENTIALS.accessKeyId,
    secretAccessKey: announced.secretAccessKey,
  };
  return { child, exited, endpoint: announced.endpoint, credentials };
}

describe('the local object store’s spool (issue 41, found 2)', () => {
  it('holds a form arriving beside its folder, not in the temporary one; a start after kill -9 clears it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'object-store-spool-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const directory = join(folder, 's3');
    const spool = `${directory}-spool`;
    const tmpBefore = await inTmp();
    const store = await storeProcess(directory);
    const s3 = client(store.endpoint, store.credentials);
    await ensureBucket(store.endpoint, BUCKET, store.credentials);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'kept', Body: 'kept' }));
    const signed = await createPresignedPost(s3, {
      Bucket: BUCKET,
      Key: 'uploads/1',
      Conditions: [['content-length-range', 1, FILE_BYTES]],
      Expires: 60,
    });
    s3.destroy();
    const form = multipartBody([
      ...Object.entries(signed.fields).map(([name, value]) => ({ name, value })),
      { name: 'file', value: randomBytes(FILE_BYTES), filename: 'big.bin' },
    ]);

    // Half of a 40 MiB upload, and no more yet: the store holds what came aside.
    const post = httpRequest(signed.url, {
      method: 'POST',
      headers: { 'content-type': form.contentType, 'content-length': form.body.length },
    });
    post.on('error', () => {
      // The store is killed under it.
    });
    post.write(form.body.subarray(0, FILE_BYTES / 2));
    const held = await eventually(async () => {
      const names = await readdir(spool);
      const sizes = await Promise.all(
        names.map(async (name) => (await stat(join(spool, name))).size),
      );
      return names.length === 1 && (sizes[0] ?? 0) >= FILE_BYTES / 4 ? names : undefined;
    });
    expect((await stat(spool)).mode & 0o777).toBe(0o700);
    expect(await inTmp()).toEqual(tmpBefore);

    store.child.kill('SIGKILL');
    await store.exited;
    post.destroy();
    // What the kill left: the part of the file held aside.
    expect(await readdir(spool)).toEqual(held);

    const again = await startObjectStore({ directory });
    const after = client(again.endpoint, again.credentials);
    try {
      expect(await readdir(spool)).toEqual([]);
      expect((await stat(spool)).mode & 0o777).toBe(0o700);
      const listed = await after.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      expect(listed.Contents?.map((object) => object.Key)).toEqual(['kept']);
      const kept = await after.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'kept' }));
      expect(await kept.Body?.transformToString()).toBe('kept');
    } finally {
      after.destroy();
      await again.stop();
    }
    // Nothing is held aside between runs.
    await expect(stat(spool)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
