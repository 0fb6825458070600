/** A seed as typed (`--seed`, a link's `seed=`): its digits read as the whole number they are (`42` is 42, as a scenario's YAML reads it), any other text kept as text. */
export function seedOf(v: string): string | number {
  return /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : v;
}
