/**
 * An HTTP agent's headers as a form edits them: one `Name: value` a line. The server answers
 * them masked; a masked value sent back keeps the stored one.
 */
export const headersText = (headers: Record<string, string> | undefined) =>
  Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

export const headersOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]),
  );
