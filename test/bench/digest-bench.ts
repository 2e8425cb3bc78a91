/**
 * What a SHA-256 costs per MB on this machine: `node:crypto`'s `createHash('sha256')` over a
 * buffer held whole, as the multipart upload hashes its file (at most 4.7 MB), and over
 * 50 MiB, the most a direct upload takes (whose completion hashes the object as it streams
 * it from S3). CPU time of the process, per MB of 1,000,000 bytes; reported, no target: the
 * upload's own budget (`cpu-bench.ts`) holds what hashing adds to it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type Figure, figureLine, FIGURE_HEADER, spreadOf } from './figures.ts';

const ROUNDS = Number(process.env.BENCH_DIGEST_ROUNDS ?? 15);
const MB = 1_000_000;

const CASES = [
  { label: '4.7 MB', bytes: 4_700_000 },
  { label: '50 MiB', bytes: 50 * 1024 * 1024 },
] as const;

/** CPU milliseconds per MB to hash `content` whole, once per round. */
function cpuPerMb(content: Buffer): number[] {
  const perMb: number[] = [];
  createHash('sha256').update(content).digest('base64');
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    createHash('sha256').update(content).digest('base64');
    const used = process.cpuUsage(started);
    perMb.push((used.user + used.system) / 1000 / (content.byteLength / MB));
  }
  return perMb;
}

const rate = (msPerMb: number) => `${(1000 / msPerMb).toFixed(0)} MB/s`;

export function benchDigests(): { report: string; figures: Figure[] } {
  const figures = CASES.map(({ label, bytes }): Figure => {
    // Random bytes: a hash's cost does not depend on them, but nothing can be skipped either.
    const content = randomBytes(bytes);
    return { name: `SHA-256 of ${label}, CPU per MB`, unit: 'ms', ...spreadOf(cpuPerMb(content)) };
  });
  const [small] = figures;
  const upload = small === undefined ? Number.NaN : (small.median * 4 * 1024 * 1024) / MB;
  return {
    figures,
    report: `
SHA-256 (node:crypto) of a buffer held whole in this process, ${String(ROUNDS)} rounds; MB = 1,000,000 bytes
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
  throughput at the median: ${CASES.map(({ label }, i) => `${label} ${rate(figures[i]?.median ?? Number.NaN)}`).join('; ')}
  the CPU bench's 4 MiB upload hashes its file: about ${(upload * 1000).toFixed(0)} µs of its CPU at that rate
`,
  };
}
