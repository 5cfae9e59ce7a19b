import http from 'node:http';
import zlib from 'node:zlib';

/** A seeded generator (mulberry32): the same seed sends the same requests, so a failure reproduces. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// ---- The OpenAPI document

export interface Operation {
  method: string;
  /** OpenAPI form: /api/prompts/{id}. */
  path: string;
  pathParams: string[];
  queryParams: { name: string; schema: JsonSchema }[];
  /** The application/json request body schema, when the operation declares one. */
  body: JsonSchema | null;
}

export type JsonSchema = Record<string, any>;

/** Every operation of the document, with its parameters and JSON body schema ($refs resolved). */
export function operationsOf(doc: any): Operation[] {
  const resolve = (s: any, depth = 0): any => {
    if (!s || typeof s !== 'object' || depth > 20) return s;
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
      const target = s.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc);
      return resolve(target, depth + 1);
    }
    return s;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const params = (op.parameters ?? []).map((p: any) => resolve(p));
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        queryParams: params.filter((p: any) => p.in === 'query').map((p: any) => ({ name: p.name, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return ops.map((o) => ({ ...o, body: o.body ? deref(o.body, resolve) : null }));
}

function deref(schema: any, resolve: (s: any) => any, depth = 0): any {
  const s = resolve(schema);
  if (!s || typeof s !== 'object' || depth > 12) return s;
  if (Array.isArray(s)) return s.map((x) => deref(x, resolve, depth + 1));
  const out: any = {};
  for (const [k, v] of Object.entries(s)) out[k] = typeof v === 'object' && v !== null ? deref(v, resolve, depth + 1) : v;
  return out;
}

// ---- Values

/** Strings that have broken services before: NUL, lone surrogates, traversal, injection, huge. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u0301\ufeff',
  '../../../../etc/passwd',
  '..\\..\\windows',
  "' OR 1=1 --",
  '"; DROP TABLE traces; --',
  '%00',
  '%s%s%n',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  '\r\nX-Injected: 1',
  'x'.repeat(5_000),
  '9'.repeat(400),
  '-1',
  'NaN',
  'null',
  '2026-13-45T99:99:99Z',
];

export const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  2 ** 53 + 1,
  0.5,
  [],
  {},
  [null],
  { __proto__: { polluted: 1 } },
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  { constructor: { prototype: { polluted: 1 } } },
  ...HOSTILE_STRINGS,
];

/** A value that roughly fits `schema` (valid more often than not), with hostile strings mixed in. */
export function valueFor(schema: JsonSchema | undefined, rng: Rng, depth = 0): unknown {
  if (!schema || depth > 6) return rng.pick(HOSTILE_VALUES);
  if (rng.chance(0.08)) return rng.pick(HOSTILE_VALUES);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length) return valueFor(rng.pick(variants), rng, depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length) return valueFor(Object.assign({}, ...schema.allOf), rng, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema, rng);
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? schema.exclusiveMinimum ?? -10;
      const hi = schema.maximum ?? schema.exclusiveMaximum ?? Math.max(lo + 1000, 1000);
      const n = rng.chance(0.2) ? rng.pick([lo, hi, lo - 1, hi + 1]) : lo + rng.next() * (hi - lo);
      return type === 'integer' ? Math.round(n) : n;
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const n = rng.int(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4));
      return Array.from({ length: n }, () => valueFor(schema.items, rng, depth + 1));
    }
    case 'object':
    default: {
      if (!schema.properties && type !== 'object') return rng.pick(HOSTILE_VALUES);
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) {
        if (required.has(k) ? rng.chance(0.95) : rng.chance(0.5)) out[k] = valueFor(v, rng, depth + 1);
      }
      if (rng.chance(0.1)) out[rng.pick(['extra', '__proto__', 'a\u0000b', ''])] = rng.pick(HOSTILE_VALUES);
      return out;
    }
  }
}

function stringFor(schema: JsonSchema, rng: Rng): string {
  if (rng.chance(0.25)) return rng.pick(HOSTILE_STRINGS);
  if (schema.format === 'date-time') return new Date(Date.UTC(2026, 10, rng.int(1, 28))).toISOString();
  if (schema.format === 'email') return `fuzz${rng.int(0, 1e6)}@example.com`;
  if (schema.format === 'uri') return `https://example.com/${rng.int(0, 1e6)}`;
  const min = schema.minLength ?? 1;
  const max = Math.min(schema.maxLength ?? 24, 64);
  const len = rng.int(min, Math.max(min, max));
  const alphabet = schema.pattern && /A-Z/.test(schema.pattern) ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789' : 'abcdefghijklmnopqrstuvwxyz0123456789-_';
  let s = '';
  for (let i = 0; i < len; i++) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s;
}

/** The same value with one thing wrong: a field of the wrong type, or a field removed. */
export function mutate(value: unknown, rng: Rng): unknown {
  if (value === null || typeof value !== 'object') return rng.pick(HOSTILE_VALUES);
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (!keys.length) return rng.pick(HOSTILE_VALUES);
  const k = rng.pick(keys);
  if (rng.chance(0.3)) delete copy[k];
  else copy[k] = rng.chance(0.3) ? mutate(copy[k], rng) : rng.pick(HOSTILE_VALUES);
  return copy;
}

// ---- Path parameters, raw bodies

/** Hostile path parameter values, as they go on the wire (already percent-encoded or deliberately not). */
export const HOSTILE_PATH_SEGMENTS = [
  '%00',
  'a%00b',
  '%ZZ',
  '%',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  'x'.repeat(5_000),
  '..',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2E%2E%2F',
  '%20',
  '%0D%0A',
  '%27%20OR%201%3D1',
  '%E2%80%AE',
  '-1',
  '0',
  '9'.repeat(40),
];

export interface RawBody {
  label: string;
  contentType?: string;
  contentEncoding?: string;
  bytes: Buffer;
}

/** 20,000 levels of nesting: recursive parsers, validators and serializers overflow their stacks. */
export function deepNesting(levels: number, kind: 'array' | 'object'): Buffer {
  return kind === 'array'
    ? Buffer.from('['.repeat(levels) + ']'.repeat(levels))
    : Buffer.from('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
}

/** Bodies no schema describes: broken JSON, invalid UTF-8, deep nesting, garbage protobuf and gzip. */
export function hostileBodies(): RawBody[] {
  const json = 'application/json';
  const protobuf = 'application/x-protobuf';
  const garbage = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 131 + 7) & 0xff));
  const bodies: RawBody[] = [
    { label: 'invalid JSON', contentType: json, bytes: Buffer.from('{"a": ') },
    { label: 'empty JSON body', contentType: json, bytes: Buffer.alloc(0) },
    { label: 'invalid UTF-8 in JSON', contentType: json, bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]) },
    { label: 'lone surrogate escape', contentType: json, bytes: Buffer.from('{"name":"\\ud800","comment":"\\udc00x","handle":"\\ud800"}') },
    { label: '20,000-deep arrays', contentType: json, bytes: deepNesting(20_000, 'array') },
    { label: '20,000-deep objects', contentType: json, bytes: deepNesting(20_000, 'object') },
    { label: 'JSON string, not object', contentType: json, bytes: Buffer.from('"x"') },
    { label: 'JSON null', contentType: json, bytes: Buffer.from('null') },
    { label: 'text/plain', contentType: 'text/plain', bytes: Buffer.from('hello') },
    { label: 'garbage protobuf', contentType: protobuf, bytes: garbage },
    { label: 'truncated protobuf', contentType: protobuf, bytes: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a]) },
    { label: 'malformed gzip (JSON)', contentType: json, contentEncoding: 'gzip', bytes: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), garbage]) },
    { label: 'malformed gzip (protobuf)', contentType: protobuf, contentEncoding: 'gzip', bytes: garbage },
    { label: 'gzip of garbage protobuf', contentType: protobuf, contentEncoding: 'gzip', bytes: zlib.gzipSync(garbage) },
    { label: 'unknown content-encoding', contentType: json, contentEncoding: 'br, zstd', bytes: Buffer.from('{}') },
    { label: '1 MB string', contentType: json, bytes: Buffer.from(JSON.stringify({ name: 'x'.repeat(1024 * 1024), value: 'y' })) },
    { label: '10 MB string', contentType: json, bytes: Buffer.from(JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) })) },
    { label: '10 MB protobuf garbage', contentType: protobuf, bytes: Buffer.alloc(10 * 1024 * 1024, 0x0a) },
    { label: 'gzip bomb (200 MB of zeros)', contentType: protobuf, contentEncoding: 'gzip', bytes: zlib.gzipSync(Buffer.alloc(200 * 1024 * 1024)) },
    { label: '200,000-deep arrays', contentType: json, bytes: deepNesting(200_000, 'array') },
  ];
  return bodies;
}

// ---- Sending

export interface RawResponse {
  status: number;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Sends exactly the path given (fetch would normalize `..` and re-encode `%`), with the body's
 * bytes as they are.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: RawBody,
  retried = false,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const h: Record<string, string | number> = { ...headers };
  if (body) {
    if (body.contentType) h['content-type'] = body.contentType;
    if (body.contentEncoding) h['content-encoding'] = body.contentEncoding;
    h['content-length'] = body.bytes.length;
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers: h, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed for idleness (5 s) just as it was reused: the
      // request never reached the server; send it again, as Node's documentation advises.
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) return void rawRequest(baseUrl, method, path, headers, body, true).then(resolve, reject);
      // A server may answer (413) and close before a large body is sent: that is an answer, not a crash.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') resolve({ status: -1, text: String(err.code) });
      else reject(err);
    });
    req.end(body?.bytes);
  });
}

/** Percent-encodes any string, lone surrogates included (encodeURIComponent throws on them). */
export function encodeSegment(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---- Positions of a zod schema

type PathKey = string | number;

/** One place in a body that a zod schema describes, and what a value there has to sit beside. */
export interface SchemaPosition {
  /** Keys and array indexes (0) from the top, as an issue's path names them. */
  path: PathKey[];
  /** The schema leaves the value's type open here: unknown or any, a record's or a loose object's values. */
  loose: boolean;
  /** Values the position's siblings must hold for it to mean what it means (the `type` beside a payload's `value`). */
  beside: { path: PathKey[]; value: unknown }[];
}

/** Key put under a record or a loose object to reach its values. */
export const EXTRA_KEY = 'fuzz_extra';

interface ZodLike {
  _zod: { def: Record<string, any> & { type: string } };
}

/** Optional, nullable, defaulted, read-only or piped schemas: the schema that decides the value's shape. */
function unwrap(schema: ZodLike): ZodLike {
  let s = schema;
  for (;;) {
    const def = s._zod.def;
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else if (def.type === 'lazy') s = def.getter();
    else return s;
  }
}

/** The values a discriminator (an enum or a literal) may hold, or null when the schema is not one. */
function choicesOf(schema: ZodLike): unknown[] | null {
  const def = unwrap(schema)._zod.def;
  if (def.type === 'enum') return Object.values(def.entries);
  if (def.type === 'literal') return [...def.values];
  return null;
}

/**
 * Every position of a zod schema: each field, each array's first element, each record's and
 * loose object's values, down to the leaves. A value beside an enum or literal sibling (a
 * payload's `value` beside its `type`) is a position once per sibling value, because what it
 * may hold depends on it. Read from the schema itself, so a new field is fuzzed by itself.
 */
export function schemaPositions(schema: ZodLike, path: PathKey[] = [], beside: SchemaPosition['beside'] = []): SchemaPosition[] {
  const s = unwrap(schema);
  const def = s._zod.def;
  const here: SchemaPosition = { path, loose: def.type === 'unknown' || def.type === 'any', beside };
  switch (def.type) {
    case 'object': {
      const out: SchemaPosition[] = [here];
      const shape = def.shape as Record<string, ZodLike>;
      const discriminators = Object.entries(shape)
        .map(([key, child]) => ({ key, choices: choicesOf(child) }))
        .filter((d): d is { key: string; choices: unknown[] } => d.choices !== null && d.choices.length <= 8);
      for (const [key, child] of Object.entries(shape)) {
        const siblings = discriminators.filter((d) => d.key !== key);
        // Each combination of the sibling discriminators' values.
        let combinations: SchemaPosition['beside'][] = [beside];
        for (const d of siblings) combinations = combinations.flatMap((c) => d.choices.map((value) => [...c, { path: [...path, d.key], value }]));
        for (const c of combinations) out.push(...schemaPositions(child, [...path, key], c));
      }
      const catchall = def.catchall as ZodLike | undefined;
      if (catchall && unwrap(catchall)._zod.def.type !== 'never') out.push(...schemaPositions(catchall, [...path, EXTRA_KEY], beside));
      return out;
    }
    case 'array':
      return [here, ...schemaPositions(def.element, [...path, 0], beside)];
    case 'record':
      return [here, ...schemaPositions(def.valueType, [...path, EXTRA_KEY], beside)];
    case 'union': {
      // The options' positions, each once (a discriminated union's options differ by their literal).
      const seen = new Set<string>();
      return [here, ...(def.options as ZodLike[]).flatMap((o) => schemaPositions(o, path, beside))].filter((p) => {
        const key = JSON.stringify([p.path, p.beside, p.loose]);
        return seen.has(key) ? false : (seen.add(key), true);
      });
    }
    default:
      return [here];
  }
}

/** A copy of `base` with `value` at `path` (objects made on the way, array index 0 included). */
export function setAt(base: unknown, path: PathKey[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path;
  const container: any = Array.isArray(base) ? [...base] : base && typeof base === 'object' ? { ...base } : typeof key === 'number' ? [] : {};
  container[key] = setAt(container[key], rest, value);
  return container;
}

/** A shape of each kind JSON has: null, numbers, strings, booleans, arrays and objects, empty and not. */
export const JSON_SHAPES: unknown[] = [null, 0, -1.5, 1e308, '', 'text', '\u0000', true, [], [null], [1], ['text'], [[]], [{}], {}, { a: null }, { a: [null] }];

/**
 * A random JSON value up to `depth` levels, its object keys drawn from `keys` (the names the
 * readers of a loosely typed value look for), its leaves from JSON_SHAPES.
 */
export function jsonValue(rng: Rng, keys: readonly string[], depth = 3): unknown {
  const roll = rng.next();
  if (depth === 0 || roll < 0.3) return rng.pick(JSON_SHAPES);
  if (roll < 0.6) return Array.from({ length: rng.int(0, 3) }, () => jsonValue(rng, keys, depth - 1));
  const out: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--) out[rng.pick(keys)] = jsonValue(rng, keys, depth - 1);
  return out;
}
