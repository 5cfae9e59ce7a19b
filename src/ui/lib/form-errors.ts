/**
 * Where a refusal of the API is shown in a form, and in what words. The server names the field
 * of each problem by its path in the request ("body.targets.0.prompt") in zod's words ("Too
 * small: expected string to have >=1 characters"); a form shows each problem next to the field
 * it is about ("Required."), and only what no field of the form shows in one sentence that names
 * the field ("The prompt of target 1 is required."). Every form of the app goes through here.
 */

/** One problem the API named: its field's path without `body.`, and what is wrong, in words for people. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** zod's and the API's words for a field's problem, as said to a person ("Too big: expected string to have <=100 characters" -> "At most 100 characters."). */
export function inWords(message: string): string {
  const said = WORDINGS.reduce<string | undefined>((found, [pattern, words]) => found ?? (pattern.test(message) ? (typeof words === 'string' ? message.replace(pattern, words) : message.replace(pattern, words)) : undefined), undefined) ?? message;
  const capital = said.charAt(0).toUpperCase() + said.slice(1);
  return /[.!?)"”]$/.test(capital) ? capital : `${capital}.`;
}

const quoted = (list: string) =>
  list
    .split('|')
    .map((v) => v.replace(/^"|"$/g, ''))
    .join(', ');

/** zod 4's default messages, in the order they are tried; the server's own messages already speak to people. */
const WORDINGS: [RegExp, string | ((...m: string[]) => string)][] = [
  [/^Too small: expected string to have >=1 characters?$/, 'Required'],
  [/^Too small: expected string to have >=?(\d+) characters?$/, 'At least $1 characters'],
  [/^Too big: expected string to have <=?(\d+) characters?$/, 'At most $1 characters'],
  [/^Too small: expected array to have >=1 items?$/, 'Choose at least one'],
  [/^Too small: expected array to have >=?(\d+) items?$/, 'Choose at least $1'],
  [/^Too big: expected array to have <=?(\d+) items?$/, 'At most $1 of these'],
  [/^Too small: expected (?:number|int|bigint) to be >=(-?[\d.]+)$/, 'At least $1'],
  [/^Too small: expected (?:number|int|bigint) to be >(-?[\d.]+)$/, 'More than $1'],
  [/^Too big: expected (?:number|int|bigint) to be <=(-?[\d.]+)$/, 'At most $1'],
  [/^Too big: expected (?:number|int|bigint) to be <(-?[\d.]+)$/, 'Less than $1'],
  [/^Invalid input: expected \w+, received undefined$/, 'Required'],
  [/^Invalid input: expected (?:number|int), received .*$/, 'Must be a number'],
  [/^Invalid input: expected boolean, received .*$/, 'Must be yes or no'],
  [/^Invalid input: expected (object|record), received .*$/, 'Must be a JSON object'],
  [/^Invalid input: expected array, received .*$/, 'Must be a list'],
  [/^Invalid input: expected string, received .*$/, 'Must be text'],
  [/^Invalid option: expected one of (.+)$/, (_m, list) => `Choose one of ${quoted(list)}`],
  [/^Invalid input: expected (".*")$/, (_m, list) => `Must be ${quoted(list)}`],
  [/^Invalid URL$/, 'Must be a web address (https://…)'],
  [/^Invalid email address$/, 'Must be an e-mail address'],
  [/^Invalid ISO datetime$/, 'Must be a date and time'],
  [/^Invalid string: must match pattern .*$/, 'Has characters that are not allowed here'],
  [/^Invalid string: must start with "(.*)"$/, 'Must start with “$1”'],
  [/^Unrecognized keys?: (.*)$/, (_m, keys) => `Not a field here: ${keys.replace(/"/g, '')}`],
  [/^Invalid input$/, 'Not valid'],
];

/** The words for a field's path: "currentPassword" -> "current password", "targets.0.prompt" -> "prompt of target 1". */
export function fieldWords(field: string): string {
  const parts = field.replace(/^(body|query|params|headers)\./, '').split('.');
  const words = (p: string) =>
    p
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/[_-]+/g, ' ')
      .toLowerCase()
      .replace(/\burl\b/, 'URL');
  const leaf = [...parts].reverse().find((p) => !/^\d+$/.test(p)) ?? field;
  const at = parts.lastIndexOf(leaf);
  // The item of a list the field belongs to ("targets.0.prompt": target 1), when there is one.
  const index = parts.slice(0, at).findLastIndex((p) => /^\d+$/.test(p));
  if (index > 0) return `${words(leaf)} of ${words(parts[index - 1]).replace(/s$/, '')} ${Number(parts[index]) + 1}`;
  return words(leaf);
}

/** A message about a field as one sentence naming it: "The handle must be ...", "Prompt of target 1: required.". */
export function sentence(message: string, field: string): string {
  const name = fieldWords(field);
  if (message.startsWith('This ')) return `The ${name} ${message.slice(5)}`;
  if (/^(Must|Is|Are|Should|Cannot|Can|Has|Does|Was|Expected|Not|Too|Already|At|Required|More|Less|Choose)\b/.test(message)) {
    const rest = message === 'Required.' ? 'is required.' : /^(At|More|Less) /.test(message) ? `must be ${message.charAt(0).toLowerCase()}${message.slice(1)}` : `${message.charAt(0).toLowerCase()}${message.slice(1)}`;
    return `The ${name} ${/^Choose /.test(message) ? `is missing: ${rest}` : rest}`;
  }
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${message}`;
}

/** The field a server message is about, and the message without the developer's prefix, in words. */
export function locate(raw: string, field?: string): FieldProblem | { field?: undefined; message: string } {
  let message = raw.replace(/^(body|query|params|headers)\./, '');
  let at = field?.replace(/^(body|query|params|headers)\./, '');
  if (!at && /^(body|query|params|headers)\./.test(raw)) {
    const prefixed = /^([A-Za-z_][\w]*(?:\.[\w]+)*): (.+)$/s.exec(message);
    if (prefixed) at = prefixed[1];
  }
  // The LangWatch-compatible routes answer only a message; a dotted path before it ("inputs.2.identifier: ...") is the field.
  if (!at) at = /^([a-z_]\w*(?:\.\w+)+): ./s.exec(message)?.[1];
  if (at) {
    const leaf = at.split('.').pop()!;
    for (const name of new Set([at, leaf])) {
      if (message.startsWith(`${name}: `)) {
        message = message.slice(name.length + 2);
        break;
      }
      if (message.startsWith(`${name} `)) {
        message = `This ${message.slice(name.length + 1)}`;
        break;
      }
    }
    return { field: at, message: inWords(message) };
  }
  return { message: message.charAt(0).toUpperCase() + message.slice(1) };
}

/** What an error of the app says about fields: an ApiError's problems (one per field the server named). */
function problemsOf(error: unknown): FieldProblem[] {
  if (!(error instanceof Error) || !('problems' in error)) return [];
  return (error as Error & { problems: FieldProblem[] }).problems;
}

/** A form field's path pattern ("targets.*.prompt") matches a problem's path ("targets.0.prompt" or deeper, "targets.0.prompt.id"). */
function covers(pattern: string, path: string): boolean {
  const want = pattern.replace(/^body\./, '').split('.');
  const have = path.split('.');
  return want.length <= have.length && want.every((p, i) => p === have[i] || p === '*');
}

/** Where each problem of a refusal is shown in one form. */
export interface FormErrors {
  /** What to say next to the form field at `path` ("name", "targets.0.prompt"), if a problem is about it. */
  at: (path: string) => string | undefined;
  /** The refusal as a sentence when some problem has no field in the form (or none is named); undefined when every one is shown at its field. */
  elsewhere: string | undefined;
}

/**
 * The problems of `error` placed on a form's fields. `fields` are the form's fields as paths of
 * the request body with `*` for any one segment (a list's index, a key) ("name", "targets.*.prompt"); `shownAt` sends a
 * path the form has no field of its own for to the field that sets it ("targets.*.variables"
 * to "targets.*.prompt"). A path matches its field and everything under it.
 */
export function formErrors(error: unknown, fields: readonly string[], shownAt: Readonly<Record<string, string>> = {}): FormErrors {
  if (!error) return { at: () => undefined, elsewhere: undefined };
  const problems = problemsOf(error).map((p) => {
    const alias = Object.entries(shownAt).find(([from]) => covers(from, p.field));
    if (!alias) return p;
    // Keep the indices of the problem's path: "targets.2.variables" -> "targets.2.prompt".
    const indices = p.field.split('.').filter((s) => /^\d+$/.test(s));
    return { ...p, field: alias[1].replace(/\*/g, () => indices.shift() ?? '0') };
  });
  const placed = problems.filter((p) => fields.some((f) => covers(f, p.field)));
  const unplaced = problems.filter((p) => !placed.includes(p));
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return {
    at: (path) => placed.find((p) => covers(path, p.field))?.message,
    elsewhere: unplaced.length ? unplaced.map((p) => sentence(p.message, p.field)).join(' ') : placed.length ? undefined : message,
  };
}

/** The API's refusal of one field, for that field's `error` (undefined otherwise): forms with one or two fields. */
export function fieldError(error: unknown, ...fields: string[]): string | undefined {
  const errors = formErrors(error, fields);
  return fields.map((f) => errors.at(f)).find(Boolean);
}

/** For a form with one place to say things (a single field): the field's problem, else the whole refusal as sentences naming its fields. */
export function errorText(error: unknown, ...fields: string[]): string | undefined {
  const errors = formErrors(error, fields);
  return fields.map((f) => errors.at(f)).find(Boolean) ?? errors.elsewhere;
}
