import { Link, Outlet, useParams } from '@tanstack/react-router';
import { can, useSession } from '../../api/session.ts';

/** The settings pages, each listed when the role may at least read it (the page says what it may change). */
const PAGES = [
  { to: '/p/$projectId/settings/projects', label: 'Projects', permission: 'project:view' },
  { to: '/p/$projectId/settings/members', label: 'Members', permission: 'organization:view' },
  { to: '/p/$projectId/settings/api-keys', label: 'API keys', permission: 'apiKeys:view' },
  { to: '/p/$projectId/settings/webhooks', label: 'Webhooks', permission: 'webhookEndpoints:view' },
  { to: '/p/$projectId/settings/model-providers', label: 'Model providers', permission: 'modelProviders:view' },
  { to: '/p/$projectId/settings/privacy', label: 'Privacy', permission: 'project:view' },
  { to: '/p/$projectId/settings/organization', label: 'Organization', permission: 'organization:view' },
  { to: '/p/$projectId/settings/account', label: 'Your account', permission: null },
] as const;

export default function SettingsLayout() {
  const { projectId } = useParams({ from: '/p/$projectId/settings' });
  const { data: session } = useSession();
  return (
    <div className="settings">
      <nav aria-label="Settings" className="settings-nav">
        <h1 className="settings-title">Settings</h1>
        {PAGES.filter((p) => p.permission === null || can(session, p.permission)).map((p) => (
          <Link key={p.to} to={p.to} params={{ projectId }} className="settings-link" activeProps={{ 'aria-current': 'page' }}>
            {p.label}
          </Link>
        ))}
      </nav>
      <div className="settings-body">
        <Outlet />
      </div>
    </div>
  );
}
