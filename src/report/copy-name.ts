/** The copy of the scenario's text in a report folder, as it was run (pure, so the browser's summary.json names it too). */
export const SCENARIO_COPY = 'scenario.yaml';
