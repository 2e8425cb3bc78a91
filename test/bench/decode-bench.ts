/**
 * Reading a JSON body, per MB, by the kind of number it holds, in this process: each against
 * the same size of small integers (what `JSON.parse` alone reads). Decimals such as `1.5` must
 * cost at most twice as much; whole floats, exponents and big ints (whose Python form differs
 * from JavaScript's, and so need their source kept) are reported: a route's body limit
 * bounds them (docs/benchmarks.md).
 */
import { parsePythonJson } from '#shared/http/fastapi/python-json.ts';
import { type Figure, figureLine, FIGURE_HEADER, median } from './figures.ts';

const DECIMALS_RATIO_TARGET = 2;
const BYTES = 2 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_DECODE_ROUNDS ?? 15);

const bodyOf = (lexeme: string): string => {
  const count = Math.floor(BYTES / (lexeme.length + 1));
  return `{"room_ids":[],"pad":[${Array(count).fill(lexeme).join(',')}]}`;
};

/** CPU milliseconds per MB of body to decode it. */
function cpuPerMb(text: string): number[] {
  const perMb: number[] = [];
  parsePythonJson(text);
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    const result = parsePythonJson(text);
    const used = process.cpuUsage(started);
    if (!result.ok) throw new Error('the bench body did not decode');
    perMb.push((used.user + used.system) / 1000 / (Buffer.byteLength(text) / 1e6));
  }
  return perMb;
}

export function benchDecoding(): { report: string; figures: Figure[] } {
  const integers = median(cpuPerMb(bodyOf('15')));
  const figure = (name: string, lexeme: string, target?: number): Figure => {
    const perMb = cpuPerMb(bodyOf(lexeme));
    return {
      name: `JSON body of ${name}, CPU per MB`,
      unit: 'ms',
      median: median(perMb),
      floor: integers,
      floorName: 'the same of integers',
      ...(target === undefined ? {} : { target }),
    };
  };
  const figures = [
    figure('decimals (1.5)', '1.5', DECIMALS_RATIO_TARGET),
    figure('decimals (0.123456)', '0.123456', DECIMALS_RATIO_TARGET),
    figure('whole floats (1.0)', '1.0'),
    figure('exponents (1e15)', '1e15'),
  ];
  return {
    figures,
    report: `
Decoding a ${String(BYTES / 1024 / 1024)} MiB JSON body in this process, ${String(ROUNDS)} rounds
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
  };
}
