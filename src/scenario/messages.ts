/**
 * Every user-facing message about scenario input, in one catalogue (as vega-lite's
 * log/message.ts): tests compare against these functions, not against copied strings.
 */
export const MSG = {
  yamlSyntax: (detail: string) => `YAML syntax error: ${detail}`,
  notAMapping: () => 'a scenario must be a YAML mapping of keys to values',
  unknownKey: (key: string, suggestion?: string) =>
    suggestion ? `unknown key "${key}" (did you mean "${suggestion}"?)` : `unknown key "${key}"`,
  unknownSystem: (value: string, suggestion?: string, known: readonly string[] = []) =>
    `unknown system "${value}"` +
    (suggestion ? ` (did you mean "${suggestion}"?)` : ` (expected one of: ${known.join(', ')})`),
  missingKey: () => 'required key is missing',
  badPath: (path: string, suggestion?: string) =>
    `"${path}" is not a setting of this system` + (suggestion ? ` (did you mean "${suggestion}"?)` : ''),
  reservedPath: (path: string) => `"${path}" cannot be varied: only the system's own settings can`,
  inVariant: (variant: string, detail: string) => `in variant "${variant}": ${detail}`,
  inSweep: (value: unknown, detail: string) => `with sweep value ${JSON.stringify(value)}: ${detail}`,
  duplicateVariant: (name: string) => `variant name "${name}" is used twice`,
  sweepRange: () => 'a range needs from <= to and step > 0',
  sweepEmpty: () => 'a sweep list needs at least one value',
  sweepTooLarge: (n: number, max: number) => `the sweep has ${n} cases; at most ${max} are allowed`,
  sweepDuplicatePath: (path: string) => `"${path}" is swept and also set by a variant; sweep it or set it, not both`,
  fileUnreadable: (detail: string) => `cannot read the file: ${detail}`,
  noScenarios: (where: string) => `no scenario files (*.yaml, *.yml) found in ${where}`,
  duplicateName: (name: string, other: string) =>
    `scenario name "${name}" is also used by ${other}; reports would overwrite each other`,
} as const;
