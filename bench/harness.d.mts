// Types of bench/harness.mjs for the tests that import it.
export class BenchUsageError extends Error {}
export interface Judged {
  metric: string;
  value: number;
  target: string;
  pass: boolean;
}
export function parseBenchArgs(argv: string[], names: string[]): { only: string[]; seconds: number; check: boolean };
export function judgeTargets(results: Record<string, unknown>, targets: Record<string, number | { max: number }>): Judged[];
export function missLines(judged: Judged[]): string[];
