/**
 * The README's quick start, run as written: its shell blocks are read from README.md at test
 * time, so the two cannot drift, and run by a plain bash, as pasted into a terminal (the block
 * stops at its first failure itself), against a fresh stage. Only `BASE` (which the block lets
 * the environment set) and `LOCAL_DATA_DIR` point it here.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

/** Every `sh` block between the "Quick start" heading and the next heading of its level. */
async function quickStartScript(): Promise<string> {
  const readme = await readFile(join(REPOSITORY_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Quick start\n');
  if (start < 0) throw new Error('README.md has no "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  if (blocks.length === 0) throw new Error('the quick start has no sh block');
  return blocks.join('\n');
}

function bash(script: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

// The walk-through runs a dozen npm and curl processes one after another.
describe('the README quick start', { timeout: waitLimit(240_000) }, () => {
  it('runs top to bottom on a fresh stage, every step succeeding', async () => {
    const result = await bash(await quickStartScript(), {
      BASE: stage().url,
      LOCAL_DATA_DIR: stage().dataDir,
    });
    const stderr = result.stderr.replace(/^npm warn .*\n/gm, '');
    expect({ code: result.code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual([
      '{"id":1,"name":"deck.pdf","type":"deck","filesize":19}',
      '{"id":2,"name":"model.xlsx","filesize":6000000}',
      'the download matches',
      expect.stringMatching(/^\{"status":"(queued|sending|sent)","file_count":2\}$/),
      expect.stringMatching(/^\{"id":\d+,"type":"financials","updated_at":"20\d\d-[^"]+"\}$/),
      '{"detail":"Only editors of this group may change its deal files"} 403',
      '{"local:v1:group:7:deal:3":["read","write"]}',
    ]);
    // What the walk-through stored: Alice's two files, and the deck attached to the deal.
    const items = await stage().items();
    const files = items.filter(
      (item) => item.PK === 'USER#1' && String(item.SK).startsWith('FILE#'),
    );
    expect(files.map((file) => file.name).sort()).toEqual(['deck.pdf', 'model.xlsx']);
    const dealFiles = items.filter((item) => item.PK === 'GROUP#7#DEAL#3');
    expect(dealFiles).toMatchObject([{ name: 'deck.pdf', type: 'financials' }]);
  });

  it('stops at its first failure: a terminal without the stage’s LOCAL_DATA_DIR gets one line', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'readme-elsewhere-'));
    try {
      const result = await bash(await quickStartScript(), {
        BASE: stage().url,
        LOCAL_DATA_DIR: elsewhere,
      });
      expect({ ...result, stderr: result.stderr.replace(/^npm warn .*\n/gm, '') }).toEqual({
        code: 1,
        stdout: '',
        stderr: `token: no local stage has started on ${elsewhere} (it holds no identity key); start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started\n`,
      });
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
