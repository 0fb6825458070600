/**
 * The workbench's JSON answers — a scenario's controls, a check of tuned values (and of a
 * sweep), the tuned case saved as YAML — as functions of the job context, so `siegesim serve`
 * (over HTTP) and the static site's workbench worker (over postMessage) answer with the same code.
 */
import { describeControls, liveScenario, tunedName, tunedYaml, metricDocsOf, sidesLines } from '../api.js';
import { scenarioOf, sweepRequest, tunedFileName, type JobContext } from './jobs.js';
import { LIMITS, optString, optValues, RequestError, reqString } from './requests.js';
import type { CheckAnswer, SaveAnswer, ScenarioInfo } from '../api/protocol.js';

/** GET /api/scenario: a scenario with its controls (generated from its schema). */
export async function describeScenario(ctx: JobContext, name: string, variant: string | undefined): Promise<ScenarioInfo> {
  const { scenario: v, display } = await scenarioOf(ctx, name);
  const d = describeControls(v, variant);
  if ('issues' in d) throw new RequestError(422, d.issues.map((i) => i.message).join('; '), d.issues);
  const sweep = (v.raw.sweep as Record<string, unknown> | undefined) ?? {};
  return {
    path: name,
    file: display,
    name: v.name,
    tunedName: tunedName(v.name),
    system: v.system.id,
    title: v.system.title,
    description: v.description ?? '',
    seed: v.seed,
    trials: v.trials,
    variants: v.variantNames,
    variant: variant ?? v.variantNames[0],
    sweep: Object.entries(sweep).map(([p, s]) => ({ path: p, spec: s })),
    // the metrics its answer leads with: the scenario's `headline:`, else the system's (the default metric of solve, sweep and sensitivity)
    headline: v.headline ?? v.system.headline,
    // every way a trial ends (the report's Answer leads with them): the page's cards show the first the case produces
    outcomes: v.system.outcomes ?? [],
    metrics: v.system.metricOrder,
    // what each metric any case of the file produces counts, and who is who in the variant shown (the report's definitions and sides)
    metricDocs: metricDocsOf(v.system, v.points.flatMap((p) => p.variants.flatMap((vc) => [...v.system.metricNames(vc.scenario)]))),
    sides: sidesLines(v.points.flatMap((p, g) => p.variants.filter((vc) => vc.variant === (variant ?? v.variantNames[0])).map((vc) => ({ case: g + 1, variant: vc.variant, text: v.system.sides?.(vc.scenario) })))),
    chunkTrials: v.system.chunkTrials,
    limits: LIMITS,
    controls: d.controls,
    groups: d.groups,
  };
}

/**
 * POST /api/check: are these values valid? The answer is a 200 either way (the issues are the
 * answer), so a value being typed never shows up as a failed request; a run with invalid values
 * still gets its 422.
 */
export async function checkValues(ctx: JobContext, body: Record<string, unknown>): Promise<CheckAnswer> {
  const { scenario: v } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const r = liveScenario(v, { variant: optString(body, 'variant'), values: optValues(body) });
  if (!r.ok) return { ok: false, issues: r.issues };
  if (body.axes === undefined) return { ok: true, issues: [] };
  // a sweep (the page's link carries one): checked as POST /api/sweep checks it, nothing run
  try {
    await sweepRequest(ctx, body);
  } catch (e) {
    if (!(e instanceof RequestError) || e.status === 404) throw e;
    return { ok: false, issues: e.issues.length > 0 ? e.issues : [{ path: '', message: e.message }] };
  }
  return { ok: true, issues: [] };
}

/** POST /api/save: the tuned case as a YAML file of its own. */
export async function saveTuned(ctx: JobContext, body: Record<string, unknown>): Promise<SaveAnswer> {
  const { scenario: v, text, display } = await scenarioOf(ctx, reqString(body, 'scenario'));
  const r = tunedYaml(text, v, { variant: optString(body, 'variant'), values: optValues(body) });
  if (!r.ok) throw new RequestError(422, r.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '), r.issues);
  // gains: what the copy's sweep gained so that it runs the case tuned (a file with a sweep)
  // stale: expect: items the tuned case no longer matches, kept in the copy as comments (tunedYaml)
  return { yaml: r.yaml, filename: tunedFileName(display), name: r.name, changed: r.yaml !== text, gains: r.gains ?? {}, stale: r.stale ?? [] };
}
