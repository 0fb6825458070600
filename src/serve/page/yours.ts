/**
 * Your own scenario, where the workbench can hold one (the static site's transport has
 * `addScenario`): paste its YAML or drop a .yaml file on the page; it is checked with the command
 * line's messages (`file:line:col  path  message`, did-you-mean) and, when valid, added to the
 * picker as `yours/<file>` and opened. The link then carries it in its fragment
 * (`#yaml=<deflate-raw, base64url>`, as the site's index page writes it), so a tuned case is
 * shared by its link alone; a link whose scenario cannot be read, or has errors, is said and the
 * first scenario opened.
 */
import { MAX_OWN_TEXT, type ScenarioEntry } from '../../api/protocol.js';
import { loadList } from './controls.js';
import { $ } from './dom.js';
import { transport, TransportError } from './transport.js';

/** Where the scenarios of your own are listed (the picker's group). */
export const OWN_PREFIX = 'yours/';

/** Each scenario of your own's text as a link carries it, by its path (`yours/pasted.yaml`). */
const packed = new Map<string, string>();

/** Does this page take scenarios of your own (its transport can hold them)? */
export const takesOwn = (): boolean => typeof transport().addScenario === 'function';

function b64url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('it is not base64url');
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** A scenario's text as a link's `yaml=` carries it: deflate-raw, base64url. */
export const packYaml = async (text: string): Promise<string> => b64url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));

/** A link's `yaml=` back to the scenario's text; throws when it is not one (cut short, mistyped). */
export async function unpackYaml(s: string): Promise<string> {
  const bytes = await pipe(unb64url(s), new DecompressionStream('deflate-raw'));
  if (bytes.length > MAX_OWN_TEXT) throw new Error(`it holds ${bytes.length.toLocaleString('en-US')} bytes, more than a scenario has`);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The fragment of a link to this scenario: its text when it is one of your own, else nothing. */
export function ownHash(path: string): string {
  const p = packed.get(path);
  return p === undefined ? '' : `#yaml=${p}`;
}

/** The panel's problems box: a scenario's errors, or nothing. */
function sayProblems(lines: string[]): void {
  const box = $('#yours-issues');
  box.textContent = lines.join('\n');
  box.hidden = lines.length === 0;
}

function showPanel(open: boolean): void {
  $('#yours').hidden = !open;
  $('#yours-toggle').setAttribute('aria-expanded', String(open));
}

/**
 * Add a scenario of your own: its path in the picker, or undefined when it has errors (said in
 * the panel, opened, with the text in its box to be fixed).
 */
export async function addOwn(name: string, text: string): Promise<string | undefined> {
  let entry: ScenarioEntry;
  try {
    entry = await transport().addScenario!(name, text);
  } catch (e) {
    const issues = e instanceof TransportError ? (e.body.issues ?? []) : [];
    $<HTMLTextAreaElement>('#yours-yaml').value = text;
    sayProblems([(e as Error).message, ...issues.map((i) => i.message)]);
    showPanel(true);
    return undefined;
  }
  sayProblems([]);
  packed.set(entry.path, await packYaml(text));
  await loadList();
  return entry.path;
}

/**
 * A link's own scenario (`#yaml=`), added: its path to open, or problems for the link's banner
 * (the first scenario is opened then). `wanted` is the link's `scenario=`: the name it had
 * (`yours/my-siege.yaml`), else it is `linked.yaml`.
 */
export async function ownFromLink(wanted: string | null): Promise<{ path?: string; problems: string[] }> {
  const yaml = new URLSearchParams(location.hash.slice(1)).get('yaml');
  if (yaml === null || !takesOwn()) return { problems: [] };
  let text: string;
  try {
    text = await unpackYaml(yaml);
  } catch (e) {
    const why = (e as Error).name === 'TypeError' ? 'it is not a compressed scenario' : (e as Error).message;
    return { problems: [`#yaml=: the link's scenario cannot be read (${why}): it may have been cut short when it was copied`] };
  }
  const name = wanted?.startsWith(OWN_PREFIX) ? wanted.slice(OWN_PREFIX.length) : 'linked.yaml';
  const path = await addOwn(name, text);
  return path ? { path, problems: [] } : { problems: [`#yaml=: the link's scenario has errors (under “your own…” above)`] };
}

/**
 * Wire the panel, the drop on the page and the address's fragment; `open` opens a path in the
 * picker. A page whose transport cannot hold scenarios of your own keeps them hidden.
 */
export function setupOwn(open: (path: string) => Promise<unknown>): void {
  if (!takesOwn()) return;
  const toggle = $('#yours-toggle');
  toggle.hidden = false;
  toggle.addEventListener('click', () => showPanel($('#yours').hidden));
  $('#yours-close').addEventListener('click', () => showPanel(false));
  const use = async (name: string, text: string) => {
    const path = await addOwn(name, text);
    if (!path) return;
    showPanel(false);
    await open(path);
  };
  $('#yours-open').addEventListener('click', () => void use('pasted.yaml', $<HTMLTextAreaElement>('#yours-yaml').value));
  addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
  });
  addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (!f) return;
    if (!/\.ya?ml$/i.test(f.name)) {
      sayProblems([`${f.name} is not a .yaml file: drop a scenario's .yaml (or paste its text)`]);
      showPanel(true);
      return;
    }
    if (f.size > MAX_OWN_TEXT) {
      sayProblems([`${f.name} is ${f.size.toLocaleString('en-US')} bytes: a scenario is a few kilobytes (at most ${MAX_OWN_TEXT.toLocaleString('en-US')})`]);
      showPanel(true);
      return;
    }
    void f.text().then((text) => {
      $<HTMLTextAreaElement>('#yours-yaml').value = text;
      return use(f.name, text);
    });
  });
  // a link with another scenario pasted over this one's address: opened as a link is
  addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.slice(1)).has('yaml')) location.reload();
  });
}
