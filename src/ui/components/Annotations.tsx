import { useState } from 'react';
import { ActionIcon, Alert, Anchor, Badge, Button, Group, Paper, SegmentedControl, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { IconPencil, IconThumbDown, IconThumbUp, IconTrash } from '@tabler/icons-react';
import { can, useSession } from '../api/session.ts';
import { useAnnotationMutations, useAnnotations } from '../api/traces.ts';
import type { Annotation, SpanOutline as Span } from '../api/traces.ts';
import { formatFullTime, formatRelative } from '../lib/format.ts';
import { errorText } from '../lib/form-errors.ts';

interface Props {
  projectId: string;
  traceId: string;
  selected: Span | null;
  spanName: (spanId: string) => string | null;
  onSelectSpan: (spanId: string) => void;
}

/** Thumbs and comments on the whole trace or on a span; the author edits and deletes their own. */
export function Annotations({ projectId, traceId, selected, spanName, onSelectSpan }: Props) {
  const { data: session } = useSession();
  const list = useAnnotations(projectId, traceId);
  const { create, update, remove } = useAnnotationMutations(projectId, traceId);
  const [target, setTarget] = useState<'trace' | 'span'>('trace');
  const [show, setShow] = useState<'all' | 'trace' | 'span'>('all');
  const mayCreate = can(session, 'annotations:create');
  const onSpan = target === 'span' && selected !== null;

  const annotations = (list.data ?? []).filter((a) =>
    show === 'all' ? true : show === 'trace' ? a.anchorKind === null : selected !== null && a.anchorKind === 'span' && a.anchorId === selected.span_id,
  );

  return (
    <Stack gap="sm" p="md" data-testid="annotations">
      {mayCreate ? (
        <AnnotationForm
          key={`${target}-${selected?.span_id ?? ''}`}
          header={
            <SegmentedControl
              size="xs"
              aria-label="Annotate"
              value={onSpan ? 'span' : 'trace'}
              onChange={(v) => setTarget(v)}
              data={[
                { value: 'trace', label: 'Whole trace' },
                { value: 'span', label: selected ? `Span: ${(selected.name ?? selected.span_id).slice(0, 28)}` : 'Selected span', disabled: !selected },
              ]}
            />
          }
          submitLabel={onSpan ? 'Annotate span' : 'Annotate trace'}
          pending={create.isPending}
          error={errorText(create.error, 'comment', 'scores', 'isThumbsUp')}
          onSubmit={async (body) => {
            await create.mutateAsync({ ...body, ...(onSpan ? { anchorKind: 'span' as const, anchorId: selected.span_id } : {}) });
            return true;
          }}
        />
      ) : (
        <Alert color="gray" variant="light" p="xs">
          Your role ({session?.role.toLowerCase() ?? 'viewer'}) can read annotations but not add them.
        </Alert>
      )}

      <Group justify="space-between">
        <Text size="sm" fw={600}>
          {list.data ? `${list.data.length} annotation${list.data.length === 1 ? '' : 's'}` : 'Annotations'}
        </Text>
        <SegmentedControl
          size="xs"
          aria-label="Show annotations of"
          value={show}
          onChange={(v) => setShow(v)}
          data={[
            { value: 'all', label: 'All' },
            { value: 'trace', label: 'Trace' },
            { value: 'span', label: 'This span', disabled: !selected },
          ]}
        />
      </Group>
      {list.isError && <Alert color="red">{list.error.message}</Alert>}
      {annotations.length === 0 && list.isSuccess && (
        <Text size="sm" className="muted">
          Nothing yet.
        </Text>
      )}
      {annotations.map((a) => (
        <AnnotationItem
          key={a.id}
          annotation={a}
          own={!!session && a.userId === session.user.id}
          mayEdit={can(session, 'annotations:update')}
          mayDelete={can(session, 'annotations:delete')}
          spanName={a.anchorId ? spanName(a.anchorId) : null}
          onSelectSpan={onSelectSpan}
          onSave={(body) => update.mutateAsync({ id: a.id, body }).then(() => true)}
          onDelete={() => remove.mutate(a.id)}
        />
      ))}
    </Stack>
  );
}

interface FormProps {
  header?: React.ReactNode;
  /** isThumbsUp null: none yet (a review without one), to be chosen before saving */
  initial?: { comment: string; isThumbsUp: boolean | null };
  submitLabel: string;
  pending: boolean;
  error?: string;
  onSubmit: (body: { comment: string; isThumbsUp: boolean }) => Promise<boolean>;
  onCancel?: () => void;
}

function AnnotationForm({ header, initial, submitLabel, pending, error, onSubmit, onCancel }: FormProps) {
  const [thumbs, setThumbs] = useState<boolean | null>(initial ? initial.isThumbsUp : null);
  const [comment, setComment] = useState(initial?.comment ?? '');
  const [missing, setMissing] = useState(false);
  return (
    <Paper withBorder p="sm" radius="sm" component="form"
      onSubmit={(e: React.FormEvent) => {
        e.preventDefault();
        if (thumbs === null) return setMissing(true);
        void onSubmit({ comment, isThumbsUp: thumbs }).then((saved) => {
          if (saved && !initial) {
            setComment('');
            setThumbs(null);
          }
        });
      }}
    >
      <Stack gap={8}>
        {header}
        <Group gap={6}>
          <Tooltip label="Good">
            <ActionIcon variant={thumbs === true ? 'filled' : 'default'} color="green" aria-label="Thumbs up" aria-pressed={thumbs === true} onClick={() => (setThumbs(true), setMissing(false))}>
              <IconThumbUp size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Bad">
            <ActionIcon variant={thumbs === false ? 'filled' : 'default'} color="red" aria-label="Thumbs down" aria-pressed={thumbs === false} onClick={() => (setThumbs(false), setMissing(false))}>
              <IconThumbDown size={16} />
            </ActionIcon>
          </Tooltip>
          {missing && (
            <Text size="xs" c="red.8" role="alert">
              Choose thumbs up or down.
            </Text>
          )}
        </Group>
        <Textarea aria-label="Comment" placeholder="Comment (optional)" autosize minRows={2} maxRows={8} value={comment} onChange={(e) => setComment(e.currentTarget.value)} maxLength={20_000} />
        {error && (
          <Text size="xs" c="red.8" role="alert">
            {error}
          </Text>
        )}
        <Group gap="xs" justify="flex-end">
          {onCancel && (
            <Button size="xs" variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button size="xs" type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

interface ItemProps {
  annotation: Annotation;
  own: boolean;
  mayEdit: boolean;
  mayDelete: boolean;
  spanName: string | null;
  onSelectSpan: (spanId: string) => void;
  onSave: (body: { comment: string; isThumbsUp: boolean }) => Promise<boolean>;
  onDelete: () => void;
}

function AnnotationItem({ annotation: a, own, mayEdit, mayDelete, spanName, onSelectSpan, onSave, onDelete }: ItemProps) {
  const [editing, setEditing] = useState(false);
  const [saving, setSaving] = useState(false);
  if (editing) {
    return (
      <AnnotationForm
        initial={{ comment: a.comment, isThumbsUp: a.isThumbsUp }}
        submitLabel="Save"
        pending={saving}
        onCancel={() => setEditing(false)}
        onSubmit={async (body) => {
          setSaving(true);
          try {
            await onSave(body);
            setEditing(false);
            return true;
          } finally {
            setSaving(false);
          }
        }}
      />
    );
  }
  return (
    <Paper withBorder p="sm" radius="sm" data-annotation-id={a.id}>
      <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
        <Group gap={8} wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
          {a.isThumbsUp === true && <IconThumbUp size={18} color="#2b8a3e" aria-label="thumbs up" />}
          {a.isThumbsUp === false && <IconThumbDown size={18} color="#c92a2a" aria-label="thumbs down" />}
          <div style={{ minWidth: 0 }}>
            <Text size="xs" className="muted">
              <b style={{ color: '#212529' }}>{a.email ?? 'API key'}</b> ·{' '}
              <time dateTime={a.createdAt} title={formatFullTime(a.createdAt)}>
                {formatRelative(Date.parse(a.createdAt))}
              </time>
              {a.updatedAt !== a.createdAt ? ' · edited' : ''}
              {a.anchorKind === 'span' && a.anchorId && (
                <>
                  {' · on span '}
                  <Anchor component="button" type="button" size="xs" onClick={() => onSelectSpan(a.anchorId!)}>
                    {spanName ?? a.anchorId}
                  </Anchor>
                </>
              )}
              {a.anchorKind && a.anchorKind !== 'span' ? ` · on ${a.anchorKind} ${a.anchorPath ?? ''}` : ''}
            </Text>
            {a.comment && (
              <Text size="sm" mt={2} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {a.comment}
              </Text>
            )}
            {a.scores && (
              <Group gap={4} mt={4} data-testid="annotation-scores">
                {a.scores.map((s) => (
                  <Badge key={s.configId} size="sm" variant="light" color="indigo" tt="none">
                    {s.name}: {s.kind === 'boolean' ? (s.value ? 'yes' : 'no') : String(s.value)}
                  </Badge>
                ))}
              </Group>
            )}
          </div>
        </Group>
        {own && (
          <Group gap={2} wrap="nowrap">
            {mayEdit && (
              <ActionIcon variant="subtle" color="gray" size="sm" aria-label="Edit annotation" onClick={() => setEditing(true)}>
                <IconPencil size={14} />
              </ActionIcon>
            )}
            {mayDelete && (
              <ActionIcon
                variant="subtle"
                color="red"
                size="sm"
                aria-label="Delete annotation"
                onClick={() => {
                  if (window.confirm('Delete this annotation?')) onDelete();
                }}
              >
                <IconTrash size={14} />
              </ActionIcon>
            )}
          </Group>
        )}
      </Group>
    </Paper>
  );
}
