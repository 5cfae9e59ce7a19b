/**
 * docs/api-reference.md from the OpenAPI document the server serves (`GET /api/openapi.json`),
 * so the reference lists exactly the routes, fields, bounds and status codes that validate
 * requests. test/foundation/api-reference.test.ts fails when the file is not current and
 * rewrites it with `npm run generate`.
 */

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  description?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
}

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string }>;
  security?: Record<string, unknown>[];
}

export interface OpenApiDocument {
  info: { title: string; version: string };
  /** Each section's title, as its route group declared it (platform/http/openapi-document.ts), in the order routes were added. */
  tags?: { name: string; 'x-displayName'?: string }[];
  paths: Record<string, Record<string, Operation>>;
}

export function renderApiReference(doc: OpenApiDocument): string {
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method: method.toUpperCase(), path, op });
    }
  }
  const declared = doc.tags ?? [];
  const title = (tag: string) => declared.find((t) => t.name === tag)?.['x-displayName'] ?? tag;
  const order = (tag: string) => {
    const i = declared.findIndex((t) => t.name === tag);
    return i < 0 ? declared.length : i;
  };
  const tags = [...byTag.keys()].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const out: string[] = [
    '# API reference',
    '',
    'Generated from the OpenAPI document the server serves at `GET /api/openapi.json` (`npm run generate`',
    'rewrites this file); the same zod schemas validate every request. Curl recipes for each route,',
    'authentication and the error shapes are in [the API guide](api.md).',
    '',
  ];
  for (const tag of tags) out.push(`- [${title(tag)}](#${slug(title(tag))})`);
  for (const tag of tags) {
    out.push('', `## ${title(tag)}`);
    for (const { method, path, op } of byTag.get(tag)!) {
      out.push('', `### \`${method} ${path}\``, '');
      if (op.summary) out.push(oneLine(op.summary), '');
      const params = op.parameters ?? [];
      const body = op.requestBody && Object.values(op.requestBody.content)[0]?.schema;
      if (params.length || body?.properties) {
        out.push('| field | in | type | |', '|---|---|---|---|');
        for (const p of params) out.push(`| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)} | ${cell([p.required ? 'required' : '', p.description ?? p.schema?.description ?? ''])} |`);
        if (body?.properties) {
          const required = new Set(body.required ?? []);
          for (const [name, s] of Object.entries(body.properties)) {
            out.push(`| \`${name}\` | body | ${typeOf(s)} | ${cell([required.has(name) ? 'required' : '', s.description ?? ''])} |`);
          }
        }
        out.push('');
      } else if (body) {
        out.push(`Body: ${typeOf(body)}${op.requestBody?.required ? ', required' : ''}.`, '');
      }
      out.push(`Answers: ${Object.keys(op.responses).map((s) => `\`${s}\``).join(', ')}.`);
    }
  }
  return out.join('\n') + '\n';
}

function slug(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cell(parts: string[]): string {
  return oneLine(parts.filter(Boolean).join('; ')).replace(/\|/g, '\\|');
}

/** A short type: `string (1..100)`, `integer (>= 1)`, `"a" \| "b"`, `array of string (<= 20)`. */
function typeOf(s: Schema | undefined): string {
  if (!s) return 'any';
  if (s.enum) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  let text = type === 'array' ? `array of ${typeOf(s.items)}` : type;
  if (s.format) text += ` (${s.format})`;
  const bounds = [
    range(s.minLength, s.maxLength),
    range(s.minimum ?? s.exclusiveMinimum, s.maximum),
    range(s.minItems, s.maxItems),
  ].filter(Boolean);
  if (bounds.length) text += ` (${bounds.join(', ')})`;
  if (s.default !== undefined) text += `, default \`${JSON.stringify(s.default)}\``;
  return text;
}

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `${min}..${max}`;
  if (max !== undefined) return `<= ${max}`;
  if (min !== undefined) return `>= ${min}`;
  return '';
}
