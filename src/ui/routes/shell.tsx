import { useEffect, useState } from 'react';
import { Alert, Avatar, Group, Menu, NativeSelect, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconClock, IconLogout, IconMenu2, IconSettings, IconTelescope } from '@tabler/icons-react';
import { Link, Outlet, useLocation, useNavigate, useParams, useRouteContext } from '@tanstack/react-router';
import { rememberProject, useSession, useSignOut, useSwitchOrganization } from '../api/session.ts';
import { setTimeZoneChoice, timeZoneChoice } from '../lib/format.ts';

const SECTIONS = [
  ['/p/$projectId/traces', 'Traces'],
  ['/p/$projectId/datasets', 'Datasets'],
  ['/p/$projectId/queues', 'Review'],
  ['/p/$projectId/threads', 'Threads'],
  ['/p/$projectId/users', 'Users'],
  ['/p/$projectId/topics', 'Topics'],
  ['/p/$projectId/prompts', 'Prompts'],
  ['/p/$projectId/evaluators', 'Evaluators'],
  ['/p/$projectId/monitors', 'Monitors'],
  ['/p/$projectId/alerts', 'Alerts'],
  ['/p/$projectId/experiments', 'Experiments'],
  ['/p/$projectId/simulations', 'Simulations'],
  ['/p/$projectId/dashboards', 'Dashboards'],
  ['/p/$projectId/analytics', 'Analytics'],
] as const;

/** The signed-in frame: brand, organization and project switchers, the user's menu. */
export default function Shell() {
  const { projectId } = useParams({ from: '/p/$projectId' });
  const initial = useRouteContext({ from: '/p/$projectId' }).session;
  const { data } = useSession();
  const session = data ?? initial;
  const navigate = useNavigate();
  const endSession = useSignOut();
  const sessionIn = useSwitchOrganization();
  const project = session.projects.find((p) => p.id === projectId);
  const sections = useSectionsMenu();

  useEffect(() => {
    if (project) rememberProject(project.id);
  }, [project]);

  // Signed out elsewhere (another tab, expiry): a 401 leaves the session query empty.
  useEffect(() => {
    if (data === null) void navigate({ to: '/signin', search: { redirect: window.location.pathname + window.location.search } });
  }, [data, navigate]);

  const signOut = async () => {
    try {
      await endSession();
    } finally {
      await navigate({ to: '/signin' });
    }
  };

  const switchOrganization = async (organizationId: string) => {
    const next = await sessionIn(organizationId);
    const first = next.projects[0];
    await navigate(first ? { to: '/p/$projectId/traces', params: { projectId: first.id } } : { to: '/' });
  };

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="shell-header">
        <Link to="/p/$projectId/traces" params={{ projectId }} className="shell-brand" aria-label="Spyglass: traces">
          <IconTelescope size={20} aria-hidden /> <span>Spyglass</span>
        </Link>
        {session.organizations.length > 1 && (
          <NativeSelect
            aria-label="Organization"
            size="xs"
            value={session.organization.id}
            onChange={(e) => void switchOrganization(e.currentTarget.value)}
            data={session.organizations.map((o) => ({ value: o.id, label: o.name }))}
            w={160}
          />
        )}
        <NativeSelect
          aria-label="Project"
          size="xs"
          value={project ? projectId : ''}
          onChange={(e) => void navigate({ to: '/p/$projectId/traces', params: { projectId: e.currentTarget.value } })}
          data={[...(project ? [] : [{ value: '', label: 'Choose a project' }]), ...session.projects.map((p) => ({ value: p.id, label: p.name }))]}
          w={180}
        />
        {/* On a phone the sections fold behind one button (the header stays one row); at desktop width the button is not drawn and the sections are always shown. */}
        <button type="button" className="shell-sections-button" aria-label={`Sections: ${sections.current}`} aria-expanded={sections.open} aria-controls="shell-sections" onClick={sections.toggle} id="shell-sections-button">
          <IconMenu2 size={16} aria-hidden /> <span className="ellipsis">{sections.current}</span>
        </button>
        <nav aria-label="Sections" id="shell-sections" className={sections.open ? 'shell-nav open' : 'shell-nav'}>
          {SECTIONS.map(([to, label]) => (
            <Link key={to} to={to} params={{ projectId }} className="nav-link" activeProps={{ 'aria-current': 'page' }}>
              {label}
            </Link>
          ))}
        </nav>
        <div style={{ flex: 1 }} />
        <Link to="/p/$projectId/settings" params={{ projectId }} className="nav-link" aria-label="Settings" activeProps={{ 'aria-current': 'page' }}>
          <IconSettings size={14} aria-hidden style={{ verticalAlign: -2 }} /> <span className="shell-settings-word">Settings</span>
        </Link>
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <UnstyledButton aria-label={`Account: ${session.user.email}`} style={{ color: 'white' }}>
              <Group gap={6} wrap="nowrap">
                <Avatar size={26} color="indigo" variant="filled" radius="xl">
                  {(session.user.name ?? session.user.email).slice(0, 1).toUpperCase()}
                </Avatar>
                <Text size="sm" visibleFrom="sm" className="ellipsis" maw={180}>
                  {session.user.name ?? session.user.email}
                </Text>
                <IconChevronDown size={14} aria-hidden />
              </Group>
            </UnstyledButton>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>
              {session.user.email}
              <br />
              {session.organization.name} · {session.role.toLowerCase()}
            </Menu.Label>
            <Menu.Item
              leftSection={<IconClock size={14} />}
              onClick={() => {
                // Every time on every page follows the choice: the page is drawn again with it.
                setTimeZoneChoice(timeZoneChoice() === 'UTC' ? 'local' : 'UTC');
                window.location.reload();
              }}
            >
              {timeZoneChoice() === 'UTC' ? 'Show times in my time zone' : 'Show times in UTC'}
            </Menu.Item>
            <Menu.Item leftSection={<IconLogout size={14} />} onClick={() => void signOut()}>
              Sign out
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </header>
      <div className="shell-main" id="main">
        {project ? (
          <Outlet />
        ) : (
          <Alert color="yellow" m="md" title="No such project">
            This project does not exist in {session.organization.name}, or you have no access to it. Choose one above.
          </Alert>
        )}
      </div>
    </div>
  );
}

/**
 * The phone's sections menu: open or closed, the section the page belongs to (the button's
 * word), closed again by a move to another page, Escape (back to the button) or a press outside.
 */
function useSectionsMenu() {
  const { pathname } = useLocation();
  // Open on the page it was opened on: another page finds it closed.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const section = pathname.split('/')[3] ?? '';
  const current = SECTIONS.find(([to]) => to.split('/')[3] === section)?.[1] ?? (section === 'settings' ? 'Settings' : 'Sections');

  useEffect(() => {
    if (!open) return;
    const button = () => document.getElementById('shell-sections-button');
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpenOn(null);
      button()?.focus();
    };
    const onPress = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!document.getElementById('shell-sections')?.contains(target) && !button()?.contains(target)) setOpenOn(null);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPress);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPress);
    };
  }, [open]);

  return { open, current, toggle: () => setOpenOn(open ? null : pathname) };
}
