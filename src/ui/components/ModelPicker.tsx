import { Autocomplete, type AutocompleteProps } from '@mantine/core';
import { useModelOptions } from '../api/model-providers.ts';

/**
 * Where a model is chosen: the models the project's providers offer (GET
 * /api/model-providers/models), grouped by provider, and free text for any other
 * provider/model. One picker for every form, so a model is chosen the same way everywhere.
 */
export function ModelPicker({ projectId, value, onChange, ...props }: { projectId: string; value: string; onChange: (model: string) => void } & Omit<AutocompleteProps, 'value' | 'onChange' | 'data'>) {
  const models = useModelOptions(projectId);
  const groups = new Map<string, string[]>();
  for (const m of models.data ?? []) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m.model]);
  const data = [...groups].map(([provider, items]) => ({ group: provider, items }));
  return (
    <Autocomplete
      placeholder={models.isPending ? 'Loading models…' : 'provider/model'}
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
