import { z } from 'zod';

/** 1..64 characters: an uppercase letter, then uppercase letters, digits or underscore. */
export const NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
export const MAX_VALUE_BYTES = 1024 * 1024;
export const DEFAULT_TTL_SECONDS = 900;

export const nameParams = z.object({
  name: z
    .string()
    .regex(NAME_PATTERN, 'a cache entry name is 1..64 characters: an uppercase letter A-Z, then uppercase letters, digits or _')
    .describe('e.g. SESSION_TOKEN'),
});

export const putEntryBody = z.strictObject({
  value: z.string().min(1).describe('encrypted at rest; at most 1 MiB (UTF-8), larger values answer 413'),
  ttl_seconds: z.number().int().min(5).max(86400).default(DEFAULT_TTL_SECONDS).describe('lifetime in seconds, 5..86400; default 900'),
});

export const entrySchema = z.object({ name: z.string(), value: z.string() });
export const storedSchema = z.object({ name: z.string(), ttl_seconds: z.number().int() });
export const deletedSchema = z.object({
  name: z.string(),
  deleted: z.boolean().describe('always true: afterwards the project holds no entry under the name, whether or not it did before'),
});

export type EntryView = z.output<typeof entrySchema>;
export type StoredView = z.output<typeof storedSchema>;
export type DeletedView = z.output<typeof deletedSchema>;
