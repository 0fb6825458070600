/**
 * A scenario of your own on the static site's workbench (pasted, dropped or carried by a link):
 * how large it may be and what it is called. Pure, for the page and its workbench worker.
 */

import { MAX_OWN_TEXT } from '../api/protocol.js';

export { MAX_OWN_TEXT };

/**
 * A scenario of your own's file name, as its messages and its saved copy name it: the base name
 * of the file dropped (`my-siege.yaml`), in the characters a name in a link keeps, ending in .yaml.
 */
export function ownFileName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '').slice(0, 80);
  if (base === '' || /^\.?ya?ml$/i.test(base)) return 'pasted.yaml';
  return /\.ya?ml$/i.test(base) ? base : `${base}.yaml`;
}
