import { useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import { Checkbox, Fieldset, Group, NativeSelect, NumberInput, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Textarea } from '@mantine/core';
import { asText } from '../lib/format.ts';
import { ModelPicker } from './ModelPicker.tsx';

/** The JSON Schema subset the evaluator catalogue uses (zod's toJSONSchema output). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

type Values = Record<string, unknown>;
/**
 * A form's values are changed by an update of the latest ones (a state setter), not by a copy of
 * the values this render saw: two changes before the next render (a control that reports twice
 * in one event, a picker that fills itself) both land.
 */
type SetValues = Dispatch<SetStateAction<Values>>;

/** The schema without its `null` alternative (`string | null`, `anyOf: [array, null]`). */
export function nonNull(schema: JsonSchema): JsonSchema {
  if (schema.anyOf) {
    const rest = schema.anyOf.filter((s) => s.type !== 'null');
    if (rest.length === 1) return { ...rest[0], description: schema.description ?? rest[0].description, default: schema.default };
  }
  if (Array.isArray(schema.type)) {
    const rest = schema.type.filter((t) => t !== 'null');
    if (rest.length === 1) return { ...schema, type: rest[0] };
  }
  return schema;
}

const isStringList = (s: JsonSchema) => s.type === 'array' && nonNull(s.items ?? {}).type === 'string';

/** A settings form generated from a JSON Schema: one control per property, nested objects as groups; a `model` text is chosen with the model picker of `projectId`. */
export function SchemaForm({
  schema,
  value,
  onChange,
  idPrefix,
  projectId,
  errorAt,
}: {
  schema: JsonSchema;
  value: Values;
  onChange: SetValues;
  idPrefix: string;
  projectId: string;
  /** What to say next to a property's control (by its name), from the form's refusal (lib/form-errors.ts). */
  errorAt?: (name: string) => string | undefined;
}) {
  const properties = Object.entries(schema.properties ?? {});
  return (
    <Stack gap="sm">
      {properties.map(([name, raw]) => {
        const s = nonNull(raw);
        const set = (v: unknown) => onChange((latest) => ({ ...latest, [name]: v }));
        /** Changes this property's group of switches, as it is in the latest values. */
        const setInner = (update: (inner: Values) => Values) => onChange((latest) => ({ ...latest, [name]: update((latest[name] ?? s.default ?? {}) as Values) }));
        const current = value[name] ?? s.default;
        const common = { label: name, description: s.description, error: errorAt?.(name) };
        if (s.enum) return <NativeSelect key={name} {...common} value={asText(current)} data={s.enum.map(String)} onChange={(e) => set(e.currentTarget.value)} />;
        if (s.type === 'boolean') return <Switch key={name} {...common} checked={current === true} onChange={(e) => set(e.currentTarget.checked)} />;
        if (s.type === 'number' || s.type === 'integer')
          return (
            <NumberInput
              key={name}
              {...common}
              value={typeof current === 'number' ? current : ''}
              min={s.minimum ?? s.exclusiveMinimum}
              max={s.maximum !== undefined && s.maximum < 1e15 ? s.maximum : undefined}
              step={s.type === 'integer' ? 1 : 0.05}
              allowDecimal={s.type === 'number'}
              onChange={(v) => set(typeof v === 'number' ? v : undefined)}
            />
          );
        if (s.type === 'string' && name === 'model') return <ModelPicker key={name} projectId={projectId} {...common} value={asText(current)} onChange={set} />;
        if (s.type === 'string') {
          const text = asText(current);
          return text.length > 60 ? (
            <Textarea key={name} {...common} autosize minRows={2} maxRows={8} value={text} onChange={(e) => set(e.currentTarget.value)} />
          ) : (
            <TextInput key={name} {...common} value={text} onChange={(e) => set(e.currentTarget.value)} />
          );
        }
        if (isStringList(s)) return <TagsInput key={name} {...common} value={Array.isArray(current) ? (current as string[]) : []} onChange={set} clearable />;
        if (s.type === 'object' && s.properties && Object.values(s.properties).every((p) => nonNull(p).type === 'boolean')) {
          const inner = (current ?? {}) as Values;
          // A group of switches has no error slot of its own: the refusal is said under it.
          const refused = common.error && (
            <Text size="xs" c="red.9" role="alert">
              {common.error}
            </Text>
          );
          if (Object.keys(s.properties).length > 12)
            return (
              <div key={name}>
                <SwitchGroups name={name} properties={s.properties} value={inner} onChange={setInner} />
                {refused}
              </div>
            );
          return (
            <Fieldset key={name} legend={name}>
              <SimpleGrid cols={{ base: 1, sm: 3 }} spacing={6}>
                {Object.entries(s.properties).map(([key, p]) => (
                  <Switch
                    key={key}
                    size="xs"
                    label={key}
                    checked={(inner[key] ?? nonNull(p).default) === true}
                    onChange={(e) => {
                      // Read now: the event's target is gone by the time React runs the update.
                      const on = e.currentTarget.checked;
                      setInner((latest) => ({ ...latest, [key]: on }));
                    }}
                  />
                ))}
              </SimpleGrid>
              {refused}
            </Fieldset>
          );
        }
        return <JsonField key={name} id={`${idPrefix}-${name}`} label={name} description={s.description} value={current} onChange={set} error={common.error} />;
      })}
    </Stack>
  );
}

/** Any other value as JSON text; applied while it parses, the error shown while it does not. */
export function JsonField({
  label,
  description,
  value,
  onChange,
  id,
  withAsterisk,
  error: given,
}: {
  label: string;
  description?: string;
  value: unknown;
  onChange: (v: unknown) => void;
  id: string;
  withAsterisk?: boolean;
  /** What is wrong with the value as the form sees it (required, refused by the server); the text's own parse error comes first. */
  error?: string;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [error, setError] = useState<string | null>(null);
  // A new value from outside (filled from a trace): show it unless it is what the text says.
  // Adjusted while rendering, as React recommends for state that follows a prop.
  const [shownValue, setShownValue] = useState(value);
  if (!Object.is(value, shownValue)) {
    setShownValue(value);
    setText((t) => {
      try {
        if (JSON.stringify(JSON.parse(t)) === JSON.stringify(value)) return t;
      } catch {
        /* the text is being edited */
      }
      return value === undefined ? '' : JSON.stringify(value, null, 2);
    });
  }
  return (
    <Textarea
      id={id}
      label={label}
      description={description ? `${description} (JSON)` : 'JSON'}
      autosize
      minRows={2}
      maxRows={12}
      className="mono"
      value={text}
      withAsterisk={withAsterisk}
      error={error ?? given}
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        if (next.trim() === '') {
          setError(null);
          onChange(undefined);
          return;
        }
        try {
          onChange(JSON.parse(next));
          setError(null);
        } catch {
          setError('not valid JSON yet');
        }
      }}
    />
  );
}

/** The required data fields that have no value yet (an empty text, an empty list): to say so next to them before running. */
export function missingRequired(schema: JsonSchema, value: Values): string[] {
  return (schema.required ?? []).filter((name) => {
    const v = value[name];
    return v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
  });
}

/**
 * An evaluator's data fields: texts, lists of texts one per line, anything else as JSON (a
 * field without a type is text). Required fields are marked; `errorAt` says what is wrong with one.
 */
export function DataForm({ schema, value, onChange, errorAt }: { schema: JsonSchema; value: Values; onChange: SetValues; errorAt?: (name: string) => string | undefined }) {
  const required = new Set(schema.required ?? []);
  return (
    <Stack gap="sm">
      {Object.entries(schema.properties ?? {}).map(([name, raw]) => {
        const s = nonNull(raw);
        const set = (v: unknown) => onChange((latest) => ({ ...latest, [name]: v }));
        const label = name;
        const withAsterisk = required.has(name);
        const error = errorAt?.(name);
        if (s.type === 'string' || s.type === undefined)
          return <Textarea key={name} label={label} withAsterisk={withAsterisk} description={s.description} autosize minRows={2} maxRows={10} value={asText(value[name])} onChange={(e) => set(e.currentTarget.value)} error={error} />;
        if (isStringList(s))
          return (
            <Textarea
              key={name}
              label={label}
              withAsterisk={withAsterisk}
              description={`${s.description ?? ''} One per line.`.trim()}
              autosize
              minRows={2}
              maxRows={10}
              value={Array.isArray(value[name]) ? (value[name] as string[]).join('\n') : ''}
              onChange={(e) => set(e.currentTarget.value === '' ? [] : e.currentTarget.value.split('\n'))}
              error={error}
            />
          );
        return <JsonField key={name} id={`data-${name}`} label={label} withAsterisk={withAsterisk} description={s.description} value={value[name]} onChange={set} error={error} />;
      })}
    </Stack>
  );
}

/** Prefixes of region-specific keys (PII entities as Presidio names them: `de_passport`, `uk_nhs`). */
const REGIONS: Record<string, string> = { uk: 'GB' };
const regionNames = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(undefined, { type: 'region' }) : null;
/** The group of a key: its country when it starts with a two-letter country code, else "Any country". */
function groupOf(key: string): string {
  const m = /^([a-z]{2})_/.exec(key);
  if (m) {
    try {
      const name = regionNames?.of((REGIONS[m[1]] ?? m[1]).toUpperCase());
      if (name && name.toUpperCase() !== m[1].toUpperCase()) return name;
    } catch {
      /* not a region code */
    }
  }
  return 'Any country';
}
const words = (key: string) => key.replace(/^[a-z]{2}_(?=.)/, (p) => (groupOf(key) === 'Any country' ? p : '')).replace(/_/g, ' ');

/**
 * Many on/off settings (an evaluator's ~80 PII entities): grouped (by country for region
 * codes), each group with "all of this group", and a search over the names.
 */
function SwitchGroups({ name, properties, value, onChange }: { name: string; properties: Record<string, JsonSchema>; value: Values; onChange: (update: (latest: Values) => Values) => void }) {
  const [query, setQuery] = useState('');
  const isOn = (key: string) => (value[key] ?? nonNull(properties[key]).default) === true;
  const groups = useMemo(() => {
    const byGroup = new Map<string, string[]>();
    for (const key of Object.keys(properties).sort()) {
      const g = groupOf(key);
      byGroup.set(g, [...(byGroup.get(g) ?? []), key]);
    }
    // "Any country" first, then the countries by name.
    return [...byGroup.entries()].sort(([a], [b]) => (a === 'Any country' ? -1 : b === 'Any country' ? 1 : a.localeCompare(b)));
  }, [properties]);
  const needle = query.trim().toLowerCase();
  const shown = groups
    .map(([g, keys]) => [g, g.toLowerCase().includes(needle) ? keys : keys.filter((k) => k.includes(needle.replace(/\s+/g, '_')) || words(k).includes(needle))] as const)
    .filter(([, keys]) => keys.length > 0);
  const onCount = Object.keys(properties).filter(isOn).length;
  const setAll = (keys: readonly string[], on: boolean) => onChange((latest) => ({ ...latest, ...Object.fromEntries(keys.map((k) => [k, on])) }));
  return (
    <Fieldset legend={`${name} (${onCount} of ${Object.keys(properties).length} on)`} style={{ minWidth: 0 }}>
      <TextInput size="xs" mb="xs" aria-label={`Search ${name}`} placeholder="Search (a name or a country)" value={query} onChange={(e) => setQuery(e.currentTarget.value)} />
      <Stack gap={6}>
        {shown.map(([group, keys]) => {
          const on = keys.filter(isOn).length;
          return (
            <details key={group} open={!!needle || group === 'Any country'} className="switch-group">
              <summary>
                <Text component="span" size="sm" fw={500}>
                  {group}
                </Text>{' '}
                <Text component="span" size="xs" className="muted">
                  {on} of {keys.length} on
                </Text>
              </summary>
              <Group gap="xs" my={6}>
                <Checkbox
                  size="xs"
                  label={`All of ${group}`}
                  checked={on === keys.length}
                  indeterminate={on > 0 && on < keys.length}
                  onChange={(e) => setAll(keys, e.currentTarget.checked)}
                />
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing={4} verticalSpacing={4}>
                {keys.map((key) => (
                  <Checkbox
                    key={key}
                    size="xs"
                    label={words(key)}
                    title={key}
                    aria-label={key}
                    checked={isOn(key)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      onChange((latest) => ({ ...latest, [key]: on }));
                    }}
                    styles={{ label: { overflowWrap: 'anywhere' } }}
                  />
                ))}
              </SimpleGrid>
            </details>
          );
        })}
        {shown.length === 0 && (
          <Text size="xs" className="muted">
            Nothing matches “{query.trim()}”.
          </Text>
        )}
      </Stack>
    </Fieldset>
  );
}
