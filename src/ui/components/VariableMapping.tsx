import { Alert, NativeSelect, Text, TextInput } from '@mantine/core';
import { useRenderedPrompt, type Prompt } from '../api/prompts.ts';
import { asText } from '../lib/format.ts';

/** A prompt variable's source as the setup sends it: `dataset.<column>` or `constant:<text>`. */
const CONSTANT = 'constant:';
const CONSTANT_CHOICE = '(constant)';

/** A variable's source: the one chosen, else the column of the same name when the dataset has one. */
export function variableSource(name: string, chosen: Record<string, string>, columns: string[]): string {
  return chosen[name] ?? (columns.includes(name) ? `dataset.${name}` : '');
}

/**
 * The prompt's variables, each from a dataset column (auto-mapped by name) or a constant, and
 * the prompt rendered on the dataset's first row: what the first cell of a run will send.
 */
export function VariableMapping({
  projectId,
  prompt,
  version,
  columns,
  entry,
  value,
  onChange,
  errorOf,
  label,
}: {
  projectId: string;
  prompt: Prompt;
  version: number | undefined;
  columns: string[];
  entry: Record<string, unknown> | null;
  value: Record<string, string>;
  onChange: (variables: Record<string, string>) => void;
  errorOf: (variable: string) => string | undefined;
  label: string;
}) {
  const names = prompt.inputs.map((i) => i.identifier);
  const sources = Object.fromEntries(names.map((n) => [n, variableSource(n, value, columns)]));
  const values = Object.fromEntries(
    names.map((n) => {
      const s = sources[n];
      return [n, s.startsWith(CONSTANT) ? s.slice(CONSTANT.length) : s.startsWith('dataset.') && entry ? (entry[s.slice('dataset.'.length)] ?? '') : ''];
    }),
  );
  const complete = !!entry && names.every((n) => sources[n]);
  const rendered = useRenderedPrompt(projectId, prompt.handle ?? prompt.id, version ?? prompt.version, values, complete);
  if (!names.length) return null;
  return (
    <div className="setup-variables">
      <table className="setup-mapping" aria-label={label}>
        <thead>
          <tr>
            <th>Variable</th>
            <th>From</th>
            <th>On the first row</th>
          </tr>
        </thead>
        <tbody>
          {names.map((n) => {
            const s = sources[n];
            const isConstant = s.startsWith(CONSTANT);
            return (
              <tr key={n}>
                <td className="mono">{n}</td>
                <td>
                  <NativeSelect
                    aria-label={`Source of variable ${n}`}
                    size="xs"
                    value={isConstant ? CONSTANT_CHOICE : s}
                    onChange={(e) => {
                      const v = e.currentTarget.value;
                      onChange({ ...value, [n]: v === CONSTANT_CHOICE ? CONSTANT : v });
                    }}
                    data={[
                      ...(s ? [] : [{ value: '', label: 'Choose a column' }]),
                      ...columns.map((c) => ({ value: `dataset.${c}`, label: `Column ${c}` })),
                      { value: CONSTANT_CHOICE, label: 'A constant' },
                    ]}
                    // Unmapped, the form says so in its own words (the API's refusal spells out the JSON a request would need).
                    error={s ? errorOf(n) : 'The dataset has no column of this name: choose one, or a constant.'}
                  />
                  {isConstant && (
                    <TextInput
                      aria-label={`Constant value of ${n}`}
                      size="xs"
                      mt={4}
                      placeholder="The same text on every row"
                      value={s.slice(CONSTANT.length)}
                      onChange={(e) => onChange({ ...value, [n]: `${CONSTANT}${e.currentTarget.value}` })}
                    />
                  )}
                </td>
                <td className="setup-preview">{entry && s ? asText(values[n]).slice(0, 120) || '(empty)' : '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {complete &&
        (rendered.isError ? (
          <Alert color="red" p="xs">
            {rendered.error.message}
          </Alert>
        ) : rendered.data ? (
          <div>
            <Text size="xs" fw={600}>
              The prompt on the first row
            </Text>
            <pre className="setup-rendered" data-testid="rendered-prompt">
              {[rendered.data.prompt ? `system: ${rendered.data.prompt}` : '', ...rendered.data.messages.map((m) => `${m.role}: ${m.content}`)].filter(Boolean).join('\n\n')}
            </pre>
          </div>
        ) : null)}
    </div>
  );
}
