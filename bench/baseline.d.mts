// Types of bench/baseline.mjs for the tests (test/bench-baseline.test.ts).
export const BASELINE_FORMAT: number;
export const CALIBRATION: string;
export function calibrationLoop(n: number): number;
export function calibrationTimer(ms: number): () => { cpu: number; wall: number };
export function median(xs: readonly number[]): number;
export interface Rate {
  value: number;
  threads?: number;
}
export function ratesOf(results: unknown, prefix?: string, threads?: number): Record<string, Rate>;
export interface RunDoc {
  date?: string;
  node?: string;
  cpu?: string;
  cores?: number;
  seconds_per_measure?: number;
  calibration: { ops_per_second: number; wall_ops_per_second: number; spread?: number; [k: string]: unknown };
  results: unknown;
}
export interface LogEntry {
  value: number;
  relative: number;
}
export interface Baseline {
  format: number;
  cpu?: string;
  calibration: RunDoc['calibration'];
  benchmarks: Record<string, Rate & { relative: number }>;
  [k: string]: unknown;
}
export function baselineDoc(doc: RunDoc, log?: readonly LogEntry[]): Baseline;
export function pairedMeasurement(log: readonly LogEntry[], value: number): LogEntry | undefined;
export interface ComparisonRow {
  name: string;
  baseline: number | null;
  current: number | null;
  ratio: number | null;
  status: 'ok' | 'SLOWER' | 'faster' | 'info' | 'new' | 'missing';
  note?: string;
}
export function compareBaseline(baseline: Baseline, current: RunDoc, tolerance: number, log?: readonly LogEntry[]): { tolerance: number; pass: boolean; rows: ComparisonRow[] };
export function comparisonTable(cmp: { tolerance: number; pass: boolean; rows: ComparisonRow[] }, baseline: Baseline, current: RunDoc): string;
export function mergeBaselines(docs: readonly Baseline[]): Baseline;
