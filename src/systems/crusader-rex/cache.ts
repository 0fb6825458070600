/**
 * Tables made once per worker, by what they depend on (state-tables.ts, field-run-path.ts; the closed field path through sideTables): read only once
 * made, so shared as they are; each cache bounded for a long-lived worker (the workbench).
 * `use` false makes the value afresh (tests compare the two).
 */
export function cached<V>(cache: Map<string, V>, key: string, make: () => V, keep: number, use = true): V {
  let v = use ? cache.get(key) : undefined;
  if (v === undefined) {
    v = make();
    if (cache.size >= keep) cache.clear();
    cache.set(key, v);
  }
  return v;
}
