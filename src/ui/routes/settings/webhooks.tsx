import { useMemo, useState } from 'react';
import { Accordion, Alert, Badge, Button, Checkbox, Group, Modal, NumberInput, Paper, Stack, Switch, Table, Text, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBolt, IconKey, IconList, IconPlus, IconTrash } from '@tabler/icons-react';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { can, useSession } from '../../api/session.ts';
import { DELIVERIES_REFRESH_MS, useDeliveries, useEndpointMutations, useEndpoints, useEventTypes } from '../../api/webhooks.ts';
import type { WebhookEndpoint, WebhookEventType } from '../../api/webhooks.ts';
import { ApiErrorAlert, ConfirmAction, RoleNote, Section, ShownOnce, shortDate } from '../../components/Settings.tsx';
import { formatDuration } from '../../lib/format.ts';
import { fieldError } from '../../lib/form-errors.ts';
import { Unloaded, Loading } from '../../components/QueryState.tsx';
import { DialogActions } from '../../components/DialogActions.tsx';

/** The reason the API itself writes when someone disables an endpoint (anything else: the dispatcher did). */
const MANUAL_REASON = 'disabled through the API';
const ROUTE = '/p/$projectId/settings/webhooks';

export default function WebhooksPage() {
  const { projectId } = useParams({ from: ROUTE });
  const { endpoint: openId } = useSearch({ from: ROUTE });
  const navigate = useNavigate({ from: ROUTE });
  const { data: session } = useSession();
  const project = session?.projects.find((p) => p.id === projectId);
  const endpoints = useEndpoints(projectId, openId !== undefined);
  const m = useEndpointMutations(projectId);
  const manage = can(session, 'webhookEndpoints:manage');
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string; rolled: boolean } | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const setOpen = (id: string | undefined) => void navigate({ search: id ? { endpoint: id } : {}, replace: true });

  const act = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (e) {
      notifications.show({ title: `${what} failed`, message: e instanceof Error ? e.message : String(e), color: 'red' });
    }
  };

  return (
    <div className="settings-page">
      {!manage && <RoleNote>Your role ({session?.role.toLowerCase()}) can see the webhook endpoints and their deliveries; only administrators change them.</RoleNote>}
      {secret && (
        <ShownOnce label={`Signing secret of ${secret.url}`} value={secret.secret}>
          {secret.rolled ? 'The previous secret keeps signing too (a second signature) for 24 hours.' : 'Receivers verify the webhook-signature header with it (Standard Webhooks).'}
        </ShownOnce>
      )}
      <Section
        title={`Webhooks of ${project?.name ?? 'this project'}`}
        description="Spyglass posts this project's events, signed, to each endpoint; every delivery attempt is logged."
        actions={
          manage && (
            <Button leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
              Add endpoint
            </Button>
          )
        }
      >
        {!endpoints.isSuccess ? (
          <Unloaded query={endpoints} failed="The endpoints could not be loaded" loading="Loading endpoints" inline />
        ) : endpoints.data.length === 0 ? (
          <Text size="sm" className="muted">
            No endpoint yet.
          </Text>
        ) : (
          <Stack gap="sm">
            {endpoints.data.map((ep) => (
              <Paper key={ep.id} withBorder p="sm" radius="sm" data-endpoint-id={ep.id} component="article" aria-label={`Endpoint ${ep.url}`}>
                <Group justify="space-between" align="flex-start" gap="xs" className="endpoint-card">
                  <Stack gap={4} style={{ minWidth: 0, flex: '1 1 260px' }}>
                    <Group gap={8} wrap="wrap">
                      <Text fw={600} className="mono" size="sm" title={ep.url} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                        {ep.url}
                      </Text>
                      <EndpointStatus endpoint={ep} />
                    </Group>
                    {ep.description && <Text size="sm">{ep.description}</Text>}
                    <Group gap={4}>
                      {ep.enabled_events.map((e) => (
                        <Badge key={e} size="xs" variant="light" color="gray" tt="none">
                          {e}
                        </Badge>
                      ))}
                    </Group>
                    {!ep.enabled && ep.disabled_reason && (
                      <Text size="xs" c={ep.disabled_reason === MANUAL_REASON ? undefined : 'red.8'}>
                        {ep.disabled_reason === MANUAL_REASON ? 'Disabled by hand' : 'Disabled automatically'} {shortDate(ep.disabled_at)}: {ep.disabled_reason}
                      </Text>
                    )}
                    {ep.failing_since && ep.enabled && (
                      <Text size="xs" className="warning-text">
                        Every attempt has failed since {shortDate(ep.failing_since)} (72 hours of failures disable the endpoint)
                      </Text>
                    )}
                    <Text size="xs" className="muted">
                      Batches of up to {ep.max_batch_size} events{ep.max_batch_delay_ms ? `, waiting ${formatDuration(ep.max_batch_delay_ms)} for more` : ''} · last success {shortDate(ep.last_success_at)}
                      {ep.previous_secret_expires_at ? ` · previous secret signs until ${shortDate(ep.previous_secret_expires_at)}` : ''}
                    </Text>
                  </Stack>
                  <Stack gap={6} align="flex-end" className="endpoint-actions">
                    {manage && (
                      <Switch
                        label="Enabled"
                        labelPosition="left"
                        checked={ep.enabled}
                        aria-label={`Enabled: ${ep.url}`}
                        onChange={(e) => {
                          const enabled = e.currentTarget.checked;
                          void act(enabled ? 'Enabling' : 'Disabling', () => m.update.mutateAsync({ id: ep.id, body: { enabled } }));
                        }}
                      />
                    )}
                    <Group gap={4} wrap="wrap" justify="flex-end">
                      {manage && (
                        <Button
                          size="compact-sm"
                          variant="default"
                          leftSection={<IconBolt size={14} />}
                          disabled={!ep.enabled}
                          title={ep.enabled ? undefined : 'Enable the endpoint first'}
                          loading={m.test.isPending && m.test.variables === ep.id}
                          onClick={() =>
                            void act('The test', async () => {
                              await m.test.mutateAsync(ep.id);
                              setOpen(ep.id);
                              notifications.show({ message: 'Test event queued: see the deliveries', color: 'teal' });
                            })
                          }
                        >
                          Send test event
                        </Button>
                      )}
                      <Button
                        size="compact-sm"
                        variant={openId === ep.id ? 'filled' : 'subtle'}
                        leftSection={<IconList size={14} />}
                        aria-expanded={openId === ep.id}
                        aria-controls={`deliveries-${ep.id}`}
                        onClick={() => setOpen(openId === ep.id ? undefined : ep.id)}
                      >
                        Deliveries
                      </Button>
                      {manage && (
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          leftSection={<IconKey size={14} />}
                          aria-label={`Roll the secret of ${ep.url}`}
                          loading={m.rollSecret.isPending && m.rollSecret.variables === ep.id}
                          onClick={() => void act('Rolling the secret', async () => setSecret({ url: ep.url, secret: (await m.rollSecret.mutateAsync(ep.id)).secret, rolled: true }))}
                        >
                          Roll secret
                        </Button>
                      )}
                      {manage && (
                        <Button size="compact-sm" variant="subtle" color="red" aria-label={`Delete ${ep.url}`} onClick={() => setDeleting(ep)}>
                          <IconTrash size={14} />
                        </Button>
                      )}
                    </Group>
                  </Stack>
                </Group>
                {openId === ep.id && <Deliveries projectId={projectId} endpointId={ep.id} />}
              </Paper>
            ))}
          </Stack>
        )}
      </Section>
      {creating && (
        <CreateEndpoint
          projectId={projectId}
          onClose={() => setCreating(false)}
          onCreated={(url, s) => {
            setCreating(false);
            setSecret({ url, secret: s, rolled: false });
          }}
        />
      )}
      <ConfirmAction
        target={deleting}
        title={() => 'Delete this endpoint?'}
        confirmLabel="Delete endpoint"
        pending={m.remove.isPending}
        error={m.remove.error}
        errorTitle="Not deleted"
        onClose={() => setDeleting(null)}
        onConfirm={(endpoint) => m.remove.mutateAsync(endpoint.id)}
      >
        <span className="mono">{deleting?.url}</span> stops receiving events; its queued batches and its delivery log are deleted.
      </ConfirmAction>
    </div>
  );
}

function EndpointStatus({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
  if (!ep.enabled) return <Badge color="red" variant="light" size="sm">disabled</Badge>;
  if (ep.failing_since) return <Badge color="orange" variant="light" size="sm">failing</Badge>;
  return <Badge color="teal" variant="light" size="sm">enabled</Badge>;
}

const OUTCOME_COLOR = { delivered: 'teal', retrying: 'orange', failed: 'red' } as const;

/** The endpoint's attempts, newest first, read again every two seconds while shown; older pages through next_cursor. */
function Deliveries({ projectId, endpointId }: { projectId: string; endpointId: string }) {
  const pages = useDeliveries(projectId, endpointId);
  const rows = pages.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div id={`deliveries-${endpointId}`} style={{ marginTop: 12 }}>
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={600} component="h3" m={0}>
          Delivery log
        </Text>
        <Text size="xs" className="muted">
          Refreshed every {DELIVERIES_REFRESH_MS / 1000} s
        </Text>
      </Group>
      {pages.isPending ? (
        <Loading label="Loading deliveries" size="xs" inline />
      ) : pages.isError ? (
        <ApiErrorAlert error={pages.error} />
      ) : rows.length === 0 ? (
        <Text size="sm" className="muted" role="status">
          No delivery yet. Send a test event, or wait for the project's next event.
        </Text>
      ) : (
        <>
          <div className="table-scroll">
            <Table className="settings-table" fz="xs" data-testid="deliveries" striped aria-label="Delivery attempts">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Fired</Table.Th>
                  <Table.Th>Outcome</Table.Th>
                  <Table.Th>HTTP status</Table.Th>
                  <Table.Th>Latency</Table.Th>
                  <Table.Th>Attempt</Table.Th>
                  <Table.Th>Events</Table.Th>
                  <Table.Th>Error</Table.Th>
                  <Table.Th>Next attempt</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((a) => (
                  <Table.Tr key={a.id} data-attempt-id={a.id}>
                    <Table.Td className="nowrap" title={`webhook-id ${a.dispatch_id}`}>
                      {shortDate(a.fired_at)}
                    </Table.Td>
                    <Table.Td>
                      <Badge size="xs" variant="light" color={OUTCOME_COLOR[a.outcome]}>
                        {a.outcome}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{a.response_status ?? 'no response'}</Table.Td>
                    <Table.Td>{formatDuration(a.latency_ms)}</Table.Td>
                    <Table.Td>{a.attempt}</Table.Td>
                    <Table.Td>{a.event_count}</Table.Td>
                    <Table.Td style={{ maxWidth: 280, overflowWrap: 'anywhere' }}>{a.error ?? '–'}</Table.Td>
                    <Table.Td className="nowrap">{a.next_attempt_at ? shortDate(a.next_attempt_at) : '–'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
          {pages.hasNextPage && (
            <Group justify="center" mt="xs">
              <Button size="compact-sm" variant="default" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
                Older attempts
              </Button>
            </Group>
          )}
        </>
      )}
    </div>
  );
}

function CreateEndpoint({ projectId, onClose, onCreated }: { projectId: string; onClose: () => void; onCreated: (url: string, secret: string) => void }) {
  const { create } = useEndpointMutations(projectId);
  const catalogue = useEventTypes(projectId);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [batchSize, setBatchSize] = useState<string | number>(50);
  const [batchDelay, setBatchDelay] = useState<string | number>(0);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await create.mutateAsync({
      url: url.trim(),
      enabled_events: events,
      ...(description.trim() ? { description: description.trim() } : {}),
      max_batch_size: Number(batchSize) || 50,
      max_batch_delay_ms: Number(batchDelay) || 0,
    });
    onCreated(created.url, created.secret);
  };

  return (
    <Modal opened onClose={onClose} title="Add a webhook endpoint" size="lg">
      <form onSubmit={(e) => void submit(e).catch(() => undefined)}>
        <Stack gap="sm">
          <TextInput label="URL" description="http(s) address of your receiver" required placeholder="https://example.com/hooks/spyglass" value={url} onChange={(e) => setUrl(e.currentTarget.value)} data-autofocus error={fieldError(create.error, 'url')} />
          <Textarea label="Description (optional)" value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={500} autosize minRows={1} />
          {!catalogue.isSuccess ? (
            <Unloaded query={catalogue} failed="The event catalogue could not be loaded" loading="Loading event types" inline size="xs" />
          ) : (
            <EventsPicker types={catalogue.data} value={events} onChange={setEvents} />
          )}
          <Group grow>
            <NumberInput label="Events per delivery (max)" value={batchSize} onChange={setBatchSize} min={1} max={500} allowDecimal={false} />
            <NumberInput label="Wait for more events (ms)" value={batchDelay} onChange={setBatchDelay} min={0} max={300000} step={1000} allowDecimal={false} />
          </Group>
          <ApiErrorAlert error={create.error} title="The endpoint was not created" shownAt={['url']} />
          <DialogActions onClose={onClose}>
            <Button type="submit" loading={create.isPending} disabled={!url.trim() || events.length === 0}>
              Add endpoint
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

/** The catalogue by family, each expandable: every event (`*`), a whole family (`family.*`) or single types. */
function EventsPicker({ types, value, onChange }: { types: WebhookEventType[]; value: string[]; onChange: (next: string[]) => void }) {
  const families = useMemo(() => {
    const map = new Map<string, WebhookEventType[]>();
    for (const t of types) map.set(t.family, [...(map.get(t.family) ?? []), t]);
    return [...map];
  }, [types]);
  const all = value.includes('*');
  const has = (s: string) => value.includes(s);
  const toggle = (s: string, on: boolean, drop: (v: string) => boolean = () => false) => onChange(on ? [...value.filter((v) => !drop(v)), s] : value.filter((v) => v !== s));

  return (
    <fieldset style={{ border: '1px solid var(--sg-border)', borderRadius: 6, padding: '8px 12px' }}>
      <legend style={{ fontSize: 14, fontWeight: 500 }}>Events ({all ? 'all' : `${value.length} chosen`})</legend>
      <Checkbox label="Every event, present and future (*)" checked={all} onChange={(e) => onChange(e.currentTarget.checked ? ['*'] : [])} mb="xs" />
      <Accordion multiple variant="contained" chevronPosition="left">
        {families.map(([family, list]) => {
          const whole = has(`${family}.*`);
          const chosen = whole ? list.length : list.filter((t) => has(t.type)).length;
          return (
            <Accordion.Item key={family} value={family}>
              <Accordion.Control>
                <Group gap={8}>
                  <Text size="sm" fw={500}>
                    {family}
                  </Text>
                  <Text size="xs" className="muted">
                    {all ? 'all' : `${chosen} of ${list.length}`}
                  </Text>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                <Stack gap={6}>
                  <Checkbox
                    label={`Every ${family} event (${family}.*)`}
                    checked={all || whole}
                    disabled={all}
                    onChange={(e) => toggle(`${family}.*`, e.currentTarget.checked, (v) => v.startsWith(`${family}.`))}
                  />
                  {list.map((t) => (
                    <Checkbox
                      key={t.type}
                      ml="lg"
                      checked={all || whole || has(t.type)}
                      disabled={all || whole}
                      onChange={(e) => toggle(t.type, e.currentTarget.checked)}
                      label={
                        <span>
                          <span className="mono">{t.type}</span> <span className="muted">v{t.schema_version}</span>
                          {!t.is_emitting && (
                            <Badge size="xs" variant="outline" color="gray" ml={6}>
                              not emitted yet
                            </Badge>
                          )}
                        </span>
                      }
                      description={t.description}
                    />
                  ))}
                </Stack>
              </Accordion.Panel>
            </Accordion.Item>
          );
        })}
      </Accordion>
      {value.length === 0 && (
        <Alert color="gray" variant="light" mt="xs" p={6}>
          <Text size="xs">Choose at least one event.</Text>
        </Alert>
      )}
    </fieldset>
  );
}
