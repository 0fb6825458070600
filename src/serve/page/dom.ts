/** The page's two DOM helpers: find an element the page's HTML has, and make one. */

/** The element a selector names (the page's HTML has it: index.html and the rows built here). */
export function $<T extends Element = HTMLElement>(sel: string, root: ParentNode = document): T {
  const e = root.querySelector<T>(sel);
  if (!e) throw new Error(`the page has no ${sel}`);
  return e;
}

/** Every element a selector names. */
export const $$ = <T extends Element = HTMLElement>(sel: string, root: ParentNode = document): T[] => [...root.querySelectorAll<T>(sel)];

type Attr = string | number | boolean | undefined | null | ((ev: Event) => void);
type Child = Node | string | number | null | undefined | false | Child[];

/**
 * A new element: `class` and `text` set those, `on…` listens, `true` is an empty attribute, and
 * `undefined`, `null` and `false` leave an attribute out.
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, Attr> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = String(v);
    else if (k === 'text') e.textContent = String(v);
    else if (typeof v === 'function') e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of (children as unknown[]).flat(Infinity)) if (c !== undefined && c !== null && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
