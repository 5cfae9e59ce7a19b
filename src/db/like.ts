/**
 * A LIKE / ILIKE pattern matching any text that contains `text` as it is: the wildcards
 * `%` and `_` and the escape character `\` in it are escaped (PostgreSQL's default escape).
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
