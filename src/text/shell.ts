/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9._\/@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
