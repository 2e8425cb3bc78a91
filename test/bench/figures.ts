/**
 * One shape for every figure the bench prints: what was measured, its median and p99, the
 * floor it is held against, their ratio and the target the ratio must meet. `npm run bench`
 * exits 1 when any figure with a target misses it.
 */
import { loadavg } from 'node:os';

export interface Figure {
  readonly name: string;
  readonly unit: 'ms' | 'µs' | 'calls' | 'items';
  readonly median: number;
  readonly p10?: number;
  readonly p99?: number;
  /**
   * What the ratio compares: the medians, or the 10th percentiles where the floor's own
   * times fall in two clusters (DynamoDB Local's), so that a median lands in either.
   */
  readonly basis?: 'median' | 'p10';
  /** The same work with nothing of ours in it, measured in the same run (same basis). */
  readonly floor?: number;
  readonly floorName?: string;
  /** The most `median / floor` may be; no target: reported only. */
  readonly target?: number;
  /**
   * The most the value itself may be, for a count held to its floor by a difference (at most
   * one call more), which a ratio does not say. Printed in the target's column.
   */
  readonly most?: number;
}

/** The figure's own value on its basis. */
export const valueOf = (figure: Figure): number =>
  figure.basis === 'p10' ? (figure.p10 ?? Number.NaN) : figure.median;

const ratioOf = (figure: Figure): number | undefined =>
  figure.floor === undefined ? undefined : valueOf(figure) / figure.floor;

export const missed = (figure: Figure): boolean => {
  const ratio = ratioOf(figure);
  if (figure.most !== undefined && !(valueOf(figure) <= figure.most)) return true;
  return figure.target !== undefined && (ratio === undefined || !(ratio <= figure.target));
};

const quantile = (values: readonly number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ??
  Number.NaN;

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** A figure's 10th percentile, median and 99th percentile. */
export const spreadOf = (values: readonly number[]) => ({
  p10: quantile(values, 0.1),
  median: median(values),
  p99: quantile(values, 0.99),
});

export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The 1-minute load average, printed beside a figure so a noisy run shows itself. */
export const loadAverage = (): number => loadavg()[0] ?? Number.NaN;

const amount = (value: number | undefined, unit: string) =>
  value === undefined ? '' : `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ${unit}`;

export const FIGURE_HEADER = `  ${'case'.padEnd(40)} ${'p10'.padStart(10)} ${'median'.padStart(10)} ${'p99'.padStart(10)}   ${'floor'.padStart(10)}  ratio of    target  verdict`;

export function figureLine(figure: Figure): string {
  const ratio = ratioOf(figure);
  const held = figure.target !== undefined || figure.most !== undefined;
  const verdict = !held ? 'reported' : missed(figure) ? 'MISSED' : 'ok';
  const floorName = figure.floorName === undefined ? '' : `  floor: ${figure.floorName}`;
  const ratioText = ratio === undefined ? '' : `${ratio.toFixed(2)} ${figure.basis ?? 'median'}`;
  const target =
    figure.most !== undefined
      ? `v <= ${figure.most.toFixed(2)}`
      : figure.target === undefined
        ? ''
        : `<= ${figure.target.toFixed(2)}`;
  return `  ${figure.name.padEnd(40)} ${amount(figure.p10, figure.unit).padStart(10)} ${amount(figure.median, figure.unit).padStart(10)} ${amount(figure.p99, figure.unit).padStart(10)}   ${amount(figure.floor, figure.unit).padStart(10)}  ${ratioText.padEnd(11)} ${target.padStart(7)}  ${verdict}${floorName}`;
}
