/** Summarize phase of the Cry Havoc system, one section per kind. */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import {
  K_BATTERING,
  K_FIRE,
  K_MELEE,
  K_MISSILE,
  MELEE_FOOT_RESULTS,
  MELEE_MOUNTED_RESULTS,
  MISSILE_FOOT_RESULTS,
  MISSILE_MOUNTED_RESULTS,
  type CryHavocCompiled,
} from './compile.js';
import { B_BY_DAY, F_BY_TURN, H_BY_DAY, M_BY_TURN, M_SLOTS, maxHealDay, S_BY_TURN, S_FIRST } from './kernel.js';
import { cryHavocShape } from './schema.js';

/** The first melee roll's metric for a result letter ("-": none), on the table the defender starts on. */
const firstName = (l: string) => `p_first_${l === '-' ? 'none' : l}`;
/** The first shot's metric for a result letter ("-": a miss), on the table the target starts on. */
const shotName = (l: string) => `p_shot_${l === '-' ? 'miss' : l}`;

/** The metrics of each kind that do not depend on a table (summarizeCryHavoc makes them). */
const KIND_METRICS: Record<string, readonly string[]> = {
  melee: ['p_defender_killed', 'p_attacker_killed', 'p_undecided', 'p_no_attack', 'mean_turns'],
  missile: ['p_killed', 'mean_turns_to_kill', 'p_hurt'],
  battering: ['p_breached', 'mean_days', 'mean_points_lost', 'mean_engines_out'],
  fire: ['p_ever_ignited', 'p_burning_at_end', 'mean_turns_burning'],
  healing: ['p_healed', 'p_out_for_scenario', 'p_dies', 'mean_days_to_heal'],
};

/**
 * The metrics a case of this scenario produces (RulesSystem.metricNames): its kind's, and for a
 * melee or missile question one per result letter of the table the defender or target starts
 * on (foot or mounted). On a file with problems, a kind or mounted flag that cannot be read
 * counts every kind or both tables.
 */
export function metricNamesCryHavoc(s: Record<string, unknown>): string[] {
  const shape = cryHavocShape();
  const kind = shape.kind.safeParse(s.kind);
  /** Whether the defender (melee) or target (missile) starts mounted: one answer, or both when it cannot be read (a melee without a defender yet). */
  const mounted = (key: 'defender' | 'target'): boolean[] => {
    const r = shape[key].safeParse(s[key]);
    const m = r.success ? r.data?.mounted : (s[key] as { mounted?: unknown } | null | undefined)?.mounted;
    return typeof m === 'boolean' ? [m] : [true, false];
  };
  const out: string[] = [];
  for (const k of kind.success ? [kind.data] : Object.keys(KIND_METRICS)) {
    out.push(...KIND_METRICS[k]);
    if (k === 'melee') out.push(...new Set(mounted('defender').flatMap((m) => (m ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS).map(firstName))));
    if (k === 'missile') out.push(...new Set(mounted('target').flatMap((m) => (m ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS).map(shotName))));
  }
  return out;
}

function cumulative(acc: Float64Array, base: number, count: number, n: number, key: string, offset = 1): CurvePoint[] {
  const out: CurvePoint[] = [];
  let cum = 0;
  for (let i = 0; i < count; i++) {
    cum += acc[base + i];
    out.push({ x: { [key]: i + offset }, m: probability(cum, n) });
  }
  return out;
}

export function summarizeCryHavoc(c: CryHavocCompiled, acc: Float64Array): CaseSummary {
  const n = acc[0];
  const metrics: CaseSummary['metrics'] = {};
  const curves: CaseSummary['curves'] = {};
  if (c.kind === K_MELEE) {
    metrics.p_defender_killed = probability(acc[1], n);
    metrics.p_attacker_killed = probability(acc[2], n);
    metrics.p_undecided = probability(acc[3], n);
    metrics.p_no_attack = probability(acc[4], n);
    metrics.mean_turns = mean(acc[1] + acc[2], acc[5], acc[6], [1, c.turns]);
    // the first roll, on the table the defender starts on
    const letters = c.defMounted0 === 1 ? MELEE_MOUNTED_RESULTS : MELEE_FOOT_RESULTS;
    letters.forEach((l, k) => {
      metrics[firstName(l)] = probability(acc[M_BY_TURN + (c.defMounted0 === 1 ? 7 + k : k)], n);
    });
    const rows: CurvePoint[] = [];
    for (let t = 1; t <= c.turns; t++) {
      MELEE_FOOT_RESULTS.forEach((l, k) => rows.push({ x: { turn: t, table: 'foot', result: l }, m: probability(acc[M_BY_TURN + (t - 1) * M_SLOTS + k], n) }));
      MELEE_MOUNTED_RESULTS.forEach((l, k) =>
        rows.push({ x: { turn: t, table: 'mounted', result: l }, m: probability(acc[M_BY_TURN + (t - 1) * M_SLOTS + 7 + k], n) }),
      );
    }
    curves.results_by_turn = rows;
  } else if (c.kind === K_MISSILE) {
    metrics.p_killed = probability(acc[1], n);
    metrics.mean_turns_to_kill = mean(acc[1], acc[2], acc[3], [1, c.turns]);
    metrics.p_hurt = probability(acc[4], n);
    const letters = c.targetMounted0 === 1 ? MISSILE_MOUNTED_RESULTS : MISSILE_FOOT_RESULTS;
    letters.forEach((l, k) => {
      metrics[shotName(l)] = probability(acc[S_FIRST + (c.targetMounted0 === 1 ? 4 + k : k)], n);
    });
    curves.p_killed_by_turn = cumulative(acc, S_BY_TURN, c.turns, n, 'turn');
  } else if (c.kind === K_BATTERING) {
    metrics.p_breached = probability(acc[1], n);
    metrics.mean_days = mean(acc[1], acc[2], acc[3], [1, c.days]);
    metrics.mean_points_lost = mean(n, acc[4], acc[5], [0, Infinity]);
    metrics.mean_engines_out = mean(n, acc[6], acc[7], [0, Infinity]);
    curves.breach_by_day = cumulative(acc, B_BY_DAY, c.days, n, 'day');
  } else if (c.kind === K_FIRE) {
    metrics.p_ever_ignited = probability(acc[1], n);
    metrics.p_burning_at_end = probability(acc[2], n);
    metrics.mean_turns_burning = mean(n, acc[3], acc[4], [0, c.turns]);
    const rows: CurvePoint[] = [];
    for (let t = 1; t <= c.turns; t++) rows.push({ x: { turn: t }, m: probability(acc[F_BY_TURN + t - 1], n) });
    curves.p_burning_by_turn = rows;
  } else {
    metrics.p_healed = probability(acc[1], n);
    metrics.p_out_for_scenario = probability(acc[2], n);
    metrics.p_dies = probability(acc[3], n);
    metrics.mean_days_to_heal = mean(acc[1], acc[4], acc[5], [1, maxHealDay(c)]);
    curves.heal_by_day = cumulative(acc, H_BY_DAY, Math.min(c.horizon, maxHealDay(c)), n, 'day');
  }
  return { metrics, curves };
}
