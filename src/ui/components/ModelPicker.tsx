import { Autocomplete, type AutocompleteProps } from '@mantine/core';
import { useLiveModelOptions } from '../api/model-providers.ts';

/**
 * Where a model is chosen: the models the project's providers list themselves right now (and
 * those they were set with, and the server environment's), grouped by provider, and free text
 * for any other provider/model. One picker for every form, so a model is chosen the same way everywhere.
 */
export function ModelPicker({ projectId, value, onChange, description, ...props }: { projectId: string; value: string; onChange: (model: string) => void; description?: string } & Omit<AutocompleteProps, 'value' | 'onChange' | 'data' | 'description'>) {
  const { models, isPending, unlisted } = useLiveModelOptions(projectId);
  const groups = new Map<string, string[]>();
  for (const m of models) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m.model]);
  const data = [...groups].map(([provider, items]) => ({ group: provider, items }));
  const note = unlisted.length ? `${unlisted.join(', ')}: its own list of models could not be loaded; the models it was set with are offered.` : undefined;
  return (
    <Autocomplete
      placeholder={isPending ? 'Loading models…' : 'provider/model'}
      description={description && note ? `${description}. ${note}` : (description ?? note)}
      {...props}
      data={data}
      value={value}
      onChange={onChange}
      limit={200}
      maxDropdownHeight={280}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
