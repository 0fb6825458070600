/** Summarize phase of the fantasy system: outcome probabilities, breach curve, attrition. */
import { mean, probability } from '../metrics.js';
import type { CaseSummary, CurvePoint } from '../types.js';
import { NT, TYPE_NAMES, type FantasyCompiled } from './compile.js';
import { fantasyShape } from './schema.js';
import {
  A_ATT_WINS,
  A_BREACHED,
  A_BREACH_ROUND,
  A_BREACH_ROUND2,
  A_BY_ROUND,
  A_CAP,
  A_DEF_WINS,
  A_ROUNDS,
  A_ROUNDS2,
  A_TRIALS,
  A_UNDECIDED,
  A_VOLLEY,
  A_VOLLEY2,
  A_WITHDREW,
  histBase,
  ROUND_STRIDE,
  roundBase,
} from './kernel.js';

export const SIDE_NAMES = ['attacker', 'defender'] as const;

/** Every case's metrics, a siege's and an open-field battle's (summarizeFantasy makes them). */
const COMMON_METRICS = ['p_attacker_wins', 'p_defender_wins', 'p_undecided', 'mean_rounds', 'p_round_cap'];
const SIEGE_METRICS = ['p_breach', 'mean_breach_round', 'p_withdrew'];
const OPEN_FIELD_METRICS = ['mean_volley_a_damage'];
/** Every metric either mode produces, in the order reports show them (RulesSystem.metricOrder). */
export const METRIC_ORDER_FANTASY = [...COMMON_METRICS, ...SIEGE_METRICS, ...OPEN_FIELD_METRICS];

/**
 * What each metric counts (RulesSystem.metricDocs), as kernel.ts counts it (checkEnd,
 * capOutcome, siege, openField); docs/rules/fantasy.md "The metrics" says the same at length.
 */
export const METRIC_DOCS_FANTASY: Readonly<Record<string, string>> = {
  p_attacker_wins:
    "the defender has no units left and the attacker has some; or the attacker has more total HP left at the round cap under rules.round_cap_result more_hp (the open field's auto; H7) or after a single_pass battle's one pass",
  p_defender_wins:
    "the attacker has no units left and the defender has some; or the attacker withdrew (p_withdrew, H27); or the round cap under round_cap_result defender (a siege's auto, H27); or the defender has more total HP where more_hp or single_pass compares them",
  p_undecided: 'both sides wiped out in the same step, or a round cap (or single_pass comparison) judged undecided: round_cap_result undecided, or equal total HP',
  mean_rounds: 'the round the battle ended (max_rounds when it reached the cap; 0 when a side had no units at the start)',
  p_round_cap:
    'the battle was still going at the end of round max_rounds (H7, H27); these trials are also counted in one of the three outcomes. A withdrawal in that round, or a single_pass comparison, is not a cap',
  p_breach: 'siege: the wall was breached at some round (4.2 step 5: wall HP 0, or the breach pool at the breach threshold, H19), counting a breach later repelled',
  mean_breach_round: 'siege: the round of the first breach, over the trials that had one',
  p_withdrew: 'siege: the attacker withdrew, below policy.withdraw_below of its starting units (H27); counted as a defender win',
  mean_volley_a_damage: "open field: the damage of the attacker's first ranged volley (round 1, Phase A) after the defender's shield dice (H8), over every trial (0 when a side starts with no units)",
};

/** An army's units in words, as `sidesFantasy` names them: `10 infantry, 4 cavalry, 1 mage; captain's Might 2`; `no units` when empty. */
function armyWords(a: Record<string, unknown> | undefined): string {
  const n = (k: string) => (typeof a?.[k] === 'number' ? (a[k] as number) : 0);
  const units = (
    [
      ['infantry', 'infantry', 'infantry'],
      ['cavalry', 'cavalry', 'cavalry'],
      ['archers', 'archer', 'archers'],
      ['mages', 'mage', 'mages'],
      ['clerics', 'cleric', 'clerics'],
      ['siege_engines', 'siege engine', 'siege engines'],
    ] as const
  )
    .filter(([k]) => n(k) > 0)
    .map(([k, one, many]) => `${n(k)} ${n(k) === 1 ? one : many}`);
  const might = n('captain_might') > 0 ? `; captain's Might ${n('captain_might')}` : '';
  return (units.length > 0 ? units.join(', ') : 'no units') + might;
}

/**
 * Who the metrics' attacker and defender are (RulesSystem.sides), as a sentence: the file's
 * `attacker:` and `defender:` armies with their units, in a siege the one outside the wall and
 * the one behind it (4.2); in the open field the one that shoots first and charges (4.1).
 * @example sidesFantasy({ mode: 'siege', attacker: { infantry: 2 }, defender: { archers: 1 } })
 * // 'attacker = the army outside the wall (2 infantry), whose engines batter the wall and whose climbers go over it; defender = the army behind the wall (1 archer) (4.2)'
 */
export function sidesFantasy(s: Record<string, unknown>): string {
  const att = armyWords(s.attacker as Record<string, unknown> | undefined);
  const def = armyWords(s.defender as Record<string, unknown> | undefined);
  return s.mode === 'open_field'
    ? `attacker = the army that shoots first (Phase A) and charges with its cavalry (${att}); defender = the army it attacks (${def}) (4.1)`
    : `attacker = the army outside the wall (${att}), whose engines batter the wall and whose climbers go over it; defender = the army behind the wall (${def}) (4.2)`;
}

/**
 * The metrics a case of this scenario produces (RulesSystem.metricNames): a siege's or an
 * open-field battle's, by `mode`; on a file with problems, a `mode` that cannot be read counts both.
 */
export function metricNamesFantasy(s: Record<string, unknown>): string[] {
  const mode = fantasyShape().mode.safeParse(s.mode);
  const siege = !mode.success || mode.data === 'siege';
  const open = !mode.success || mode.data === 'open_field';
  return [...COMMON_METRICS, ...(siege ? SIEGE_METRICS : []), ...(open ? OPEN_FIELD_METRICS : [])];
}

export function summarizeFantasy(c: FantasyCompiled, acc: Float64Array): CaseSummary {
  const n = acc[A_TRIALS];
  const metrics: CaseSummary['metrics'] = {
    p_attacker_wins: probability(acc[A_ATT_WINS], n),
    p_defender_wins: probability(acc[A_DEF_WINS], n),
    p_undecided: probability(acc[A_UNDECIDED], n),
    mean_rounds: mean(n, acc[A_ROUNDS], acc[A_ROUNDS2], [0, c.maxRounds]), // 0: a side empty from the start
    p_round_cap: probability(acc[A_CAP], n),
  };
  const curves: CaseSummary['curves'] = {};
  if (c.siege === 1) {
    metrics.p_breach = probability(acc[A_BREACHED], n);
    metrics.mean_breach_round = mean(acc[A_BREACHED], acc[A_BREACH_ROUND], acc[A_BREACH_ROUND2], [1, c.maxRounds]);
    metrics.p_withdrew = probability(acc[A_WITHDREW], n);
    const breach: CurvePoint[] = [];
    let cum = 0;
    for (let r = 1; r <= c.maxRounds; r++) {
      cum += acc[A_BY_ROUND + r - 1];
      breach.push({ x: { round: r }, m: probability(cum, n) });
    }
    curves.breach_by_round = breach;
    const wall: CurvePoint[] = [];
    for (let r = 0; r <= c.maxRounds; r++) {
      const b = roundBase(c) + r * ROUND_STRIDE;
      wall.push({ x: { round: r }, m: mean(n, acc[b], acc[b + 1], [0, c.wallHp]) });
    }
    curves.wall_hp = wall;
  } else {
    metrics.mean_volley_a_damage = mean(n, acc[A_VOLLEY], acc[A_VOLLEY2], [0, c.maxVolley]);
    const hist: CurvePoint[] = [];
    for (let d = 0; d <= c.maxVolley; d++) hist.push({ x: { damage: d }, m: probability(acc[histBase(c) + d], n) });
    curves.volley_damage = hist;
  }
  const attrition: CurvePoint[] = [];
  for (let r = 0; r <= c.maxRounds; r++) {
    const b = roundBase(c) + r * ROUND_STRIDE;
    for (let s = 0; s < 2; s++)
      for (let t = 0; t < NT; t++) {
        if (c.units[s * NT + t] === 0) continue; // a type the side never had
        const k = b + 2 + (s * NT + t) * 2;
        attrition.push({ x: { round: r, side: SIDE_NAMES[s], unit: TYPE_NAMES[t] }, m: mean(n, acc[k], acc[k + 1], [0, c.units[s * NT + t]]) });
      }
  }
  curves.attrition = attrition;
  return { metrics, curves };
}
