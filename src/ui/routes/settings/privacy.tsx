import { useState } from 'react';
import { ActionIcon, Button, Group, SegmentedControl, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import { fieldError } from '../../lib/form-errors.ts';
import { usePrivacySettings, useSavePrivacySettings, type PrivacySettings, type PrivacySettingsInput } from '../../api/privacy.ts';
import { can, useSession } from '../../api/session.ts';
import { ApiErrorAlert, RoleNote, Section } from '../../components/Settings.tsx';
import { Unloaded } from '../../components/QueryState.tsx';

const MODES = [
  { value: 'off', label: 'Off' },
  { value: 'flag', label: 'Flag only' },
  { value: 'mask', label: 'Mask' },
  { value: 'hash', label: 'Hash' },
];

const MODE_WORDS: Record<string, string> = {
  off: 'Data is stored as it arrives.',
  flag: 'Data is stored as it arrives; what personal data it holds is counted on each trace.',
  mask: 'Each value found becomes its type: <EMAIL_ADDRESS>.',
  hash: 'Each value found becomes its type and a keyed hash: the same value, the same token in this project, so one user\u2019s traces still group.',
};

type Form = Pick<PrivacySettings, 'mode' | 'entities' | 'untouched_keys' | 'patterns'>;

export default function PrivacyPage() {
  const { projectId } = useParams({ from: '/p/$projectId/settings/privacy' });
  const { data: session } = useSession();
  const settings = usePrivacySettings(projectId);
  const save = useSavePrivacySettings(projectId);
  const [form, setForm] = useState<Form | null>(null);
  // The form follows the settings as loaded and as saved (state adjusted while rendering).
  const [shown, setShown] = useState<PrivacySettings | undefined>(undefined);
  if (settings.data !== shown) {
    setShown(settings.data);
    if (settings.data) setForm({ mode: settings.data.mode, entities: settings.data.entities, untouched_keys: settings.data.untouched_keys, patterns: settings.data.patterns });
  }
  const mayChange = can(session, 'project:update');
  const error = save.error;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!form) return;
    // Entity types are typed in: the server answers one it does not know with a 400 shown on the field.
    const saved = await save.mutateAsync({ ...form, entities: form.entities as PrivacySettingsInput['entities'] });
    notifications.show({ message: `Privacy settings saved. ${saved.applies_to}`, color: 'teal' });
  };
  const setPattern = (i: number, change: Partial<Form['patterns'][number]>) =>
    form && setForm({ ...form, patterns: form.patterns.map((p, j) => (j === i ? { ...p, ...change } : p)) });

  return (
    <div className="settings-page">
      <Section title="Privacy at ingest" description="Personal data removed from everything this project receives, before anything is stored, logged or sent to a webhook.">
        {!settings.isSuccess ? (
          <Unloaded query={settings} failed="The privacy settings could not be loaded" loading="Loading the privacy settings" inline />
        ) : form ? (
          <form onSubmit={(e) => void submit(e).catch(() => undefined)}>
            <Stack gap="md">
              <div>
                <Text size="sm" fw={500} id="privacy-mode-label" mb={4}>
                  Mode
                </Text>
                <SegmentedControl aria-labelledby="privacy-mode-label" data={MODES} value={form.mode} onChange={(mode) => setForm({ ...form, mode: mode as Form['mode'] })} disabled={!mayChange} />
                <Text size="xs" className="muted" mt={4}>
                  {MODE_WORDS[form.mode]}
                </Text>
              </div>
              <TagsInput
                label="Entity types"
                description="The PII evaluator's types to look for, e.g. CREDIT_CARD, EMAIL_ADDRESS, PHONE_NUMBER, IBAN_CODE, PERSON"
                value={form.entities}
                onChange={(entities) => setForm({ ...form, entities: entities.map((x) => x.trim().toUpperCase()) })}
                error={fieldError(error, 'entities', 'body.entities') ?? entityError(error, form.entities.length)}
                readOnly={!mayChange}
                clearable={mayChange}
              />
              <TagsInput
                label="Never touched"
                description="Fields (input, output, metadata, comment, ...) or attribute and metadata keys kept as sent: ids, model names"
                value={form.untouched_keys}
                onChange={(keys) => setForm({ ...form, untouched_keys: keys })}
                error={fieldError(error, 'untouched_keys', 'body.untouched_keys') ?? indexedError(error, 'untouched_keys', form.untouched_keys.length)}
                readOnly={!mayChange}
              />
              <div>
                <Text size="sm" fw={500}>
                  Your own patterns
                </Text>
                <Text size="xs" className="muted" mb={6}>
                  Regular expressions in RE2 syntax (no look-around or back-references: they run in linear time). Matches become &lt;NAME&gt;.
                </Text>
                <Stack gap="xs">
                  {form.patterns.map((p, i) => (
                    <Group key={i} align="flex-start" gap="xs" wrap="wrap">
                      <TextInput aria-label={`Pattern ${i + 1} name`} placeholder="EMPLOYEE_ID" value={p.name} onChange={(e) => setPattern(i, { name: e.currentTarget.value })} error={fieldError(error, `patterns.${i}.name`, `body.patterns.${i}.name`)} readOnly={!mayChange} w={180} />
                      <TextInput aria-label={`Pattern ${i + 1} expression`} placeholder="EMP-\d{6}" className="mono" value={p.pattern} onChange={(e) => setPattern(i, { pattern: e.currentTarget.value })} error={fieldError(error, `patterns.${i}.pattern`, `body.patterns.${i}.pattern`)} readOnly={!mayChange} style={{ flex: '1 1 220px' }} />
                      {mayChange && (
                        <ActionIcon variant="subtle" color="gray" aria-label={`Remove pattern ${i + 1}`} onClick={() => setForm({ ...form, patterns: form.patterns.filter((_, j) => j !== i) })} mt={4}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      )}
                    </Group>
                  ))}
                  {mayChange && (
                    <Button variant="subtle" size="compact-sm" leftSection={<IconPlus size={14} />} onClick={() => setForm({ ...form, patterns: [...form.patterns, { name: '', pattern: '' }] })} style={{ alignSelf: 'flex-start' }}>
                      Add a pattern
                    </Button>
                  )}
                </Stack>
              </div>
              {settings.data && (
                <Text size="xs" className="muted">
                  {settings.data.applies_to}
                </Text>
              )}
              {mayChange ? (
                <Group>
                  <Button type="submit" loading={save.isPending}>
                    Save
                  </Button>
                </Group>
              ) : (
                <RoleNote>Only administrators change what is removed at ingest.</RoleNote>
              )}
              <ApiErrorAlert error={error} title="Not saved" shownAt={shownAt(form)} />
            </Stack>
          </form>
        ) : null}
      </Section>
    </div>
  );
}

/** An error on one item of a list (`body.entities.2`), shown on the list's field. */
function indexedError(error: unknown, field: string, n: number): string | undefined {
  for (let i = 0; i < n; i++) {
    const found = fieldError(error, `${field}.${i}`, `body.${field}.${i}`);
    if (found) return found;
  }
  return undefined;
}

const entityError = (error: unknown, n: number) => indexedError(error, 'entities', n);

/** The fields whose errors are shown next to them (the alert does not repeat them). */
function shownAt(form: Form): string[] {
  const lists = (field: string, n: number) => Array.from({ length: n }, (_, i) => [`${field}.${i}`, `body.${field}.${i}`]).flat();
  return [
    'entities',
    'untouched_keys',
    ...lists('entities', form.entities.length),
    ...lists('untouched_keys', form.untouched_keys.length),
    ...form.patterns.flatMap((_, i) => [`patterns.${i}.name`, `patterns.${i}.pattern`, `body.patterns.${i}.name`, `body.patterns.${i}.pattern`]),
  ];
}
