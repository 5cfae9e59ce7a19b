// zod/mini, not zod: the router loads with the first page, and zod/mini's functions leave out
// of the bundle what they do not use (zod's classes would add some 90 KB to the first load).
import * as z from 'zod/mini';

/** The URL's search as the router reads it: each parameter's text, nothing parsed further. */
export function parseSearch(search: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(search.startsWith('?') ? search.slice(1) : search));
}

/**
 * A page's URL search, read through a zod schema whose every field is optional and falls back
 * to absent when its value does not fit (`field()`): a mistyped or stale link opens the page
 * with its defaults, never an error page. Keys left absent are dropped, as the URL drops them.
 */
export function searchValidator<S extends z.ZodMiniObject>(schema: S) {
  return (raw: Record<string, unknown>): z.output<S> => {
    const parsed = schema.parse(raw) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as z.output<S>;
  };
}

/** A search field: `schema`'s value when it fits, else absent. */
export const field = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

/** Any text, the empty one included. */
export const text = () => field(z.string());
/** Text that is not empty. */
export const words = () => field(z.string().check(z.minLength(1)));
/** One of `values`. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => field(z.enum(values));
/** A whole number of at least `min`, from the URL's text ("" is no number). */
export const wholeNumber = (min: number) =>
  field(
    z.pipe(
      z.union([z.number(), z.string().check(z.minLength(1))]),
      z.pipe(
        z.transform((v: number | string) => Number(v)),
        z.int().check(z.gte(min)),
      ),
    ),
  );
/** A value `test` accepts, typed `T`. */
export const matching = <T extends string>(test: (v: string) => boolean) => field(z.custom<T>((v) => typeof v === 'string' && test(v)));
