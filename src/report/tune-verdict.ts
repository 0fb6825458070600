/** Tune's verdict in words, shared by the command line, the tune page and the workbench page (no imports: the page's bundle takes it as it is). */

/**
 * After "found": how many targets the answer meets by its estimate only, its 95% interval
 * reaching past an edge (the second new-user audit: "meets the target" beside an interval three
 * times the band's width invited more confidence than the trials give); '' when every interval
 * is wholly inside.
 */
export function unsureText(checks: readonly { met: boolean; sure: boolean }[] | undefined): string {
  const unsure = (checks ?? []).filter((c) => c.met && !c.sure).length;
  const n = checks?.length ?? 0;
  if (unsure === 0) return '';
  return n === 1 ? '; by its estimate: its 95% interval reaches past an edge of the target' : `; ${unsure} of ${n} by the estimate alone: their 95% intervals reach past an edge`;
}

