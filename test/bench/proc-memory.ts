import { readFileSync, writeFileSync } from 'node:fs';

/** A field of /proc/<pid>/status, in bytes (the kernel reports kB). */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`No ${field} for process ${pid}`);
  return Number(kb) * 1024;
}

export const residentBytes = (pid: number): number => statusBytes(pid, 'VmRSS');

/** The process's peak resident set since the last reset. */
export const peakResidentBytes = (pid: number): number => statusBytes(pid, 'VmHWM');

/** Starts a new peak: writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
