/** The page's state: the scenario open, its controls, the tuned values, and the jobs running. */
import type { RunDone, RunPartial, RunStart, ScenarioEntry, ScenarioInfo, SensitivityDone, TuneDone, WireControl } from '../../api/protocol.js';

/** A control on the page: its description, its row, and how to read and set its input. */
export interface ControlView {
  c: WireControl;
  row: HTMLElement;
  get(): unknown;
  set(v: unknown): void;
  error: HTMLElement;
}

/** The jobs of a tab: one of each kind at a time. */
export type JobSlot = 'live' | 'sweep' | 'sens' | 'tune';

export interface PageState extends Record<JobSlot, AbortController | null> {
  list: ScenarioEntry[];
  /** The /api/scenario answer of the scenario open (set before any control exists). */
  info: ScenarioInfo;
  /** path -> its control */
  controls: Map<string, ControlView>;
  /** Tuned values (dotted path -> value), only those that differ from the file. */
  values: Record<string, unknown>;
  seq: number;
  /** The live run's last partial or done message. */
  last: RunPartial | RunDone | null;
  /** The live run's start message. */
  start?: RunStart;
  changeAt: number;
  /** The sweep form as set up for the scenario (a link says the sweep only once it differs). */
  sweepDefault?: string;
  /** A link's `seed=`: the live run's and the sweep's dice come from it (unset: the file's seed). */
  seed?: string | number;
}

export const state: PageState = {
  list: [],
  info: undefined as unknown as ScenarioInfo,
  controls: new Map(),
  values: {},
  live: null,
  sweep: null,
  sens: null,
  tune: null,
  seq: 0,
  last: null,
  changeAt: 0,
};

/** One live run as the browser tests read it: time from a change to the first number, and to the precision. */
export interface RunRecord {
  seq: number;
  scenario: string;
  values: Record<string, unknown>;
  firstMs: number | null;
  doneMs: number | null;
  trials: number;
  reached: boolean | null | undefined;
}

/** What the browser tests read from the page. */
export interface PageMarks {
  runs: RunRecord[];
  ready: boolean;
  empty?: boolean;
  /** The last `done` of the ranking and of the search, as streamed (the tests compare them with the command line's). */
  answers?: { sensitivity?: SensitivityDone; tune?: TuneDone };
  format?: Record<string, (...args: never[]) => string>;
}

/** vega-embed's result: a view to finalize when its chart is replaced. */
export interface EmbedResult {
  finalize(): void;
}

declare global {
  interface Window {
    __siegesim: PageMarks;
    /** vega-embed, from its deferred script (undefined when it did not load). */
    vegaEmbed?: (el: HTMLElement, spec: object, options: object) => Promise<EmbedResult>;
  }
  interface HTMLElement {
    /** A chart box's current vega view. */
    view?: EmbedResult | null;
  }
}

export const marks: PageMarks = (window.__siegesim = { runs: [], ready: false });
