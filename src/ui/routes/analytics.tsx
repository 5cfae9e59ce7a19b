import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { DashboardScreen } from './dashboard.tsx';

/** Analytics: the project's default dashboard (the charts every project starts with, editable like any other). */
export default function AnalyticsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/analytics' });
  const search = useSearch({ from: '/p/$projectId/analytics' });
  const navigate = useNavigate({ from: '/p/$projectId/analytics' });
  return <DashboardScreen projectId={projectId} dashboardId="default" search={search} onSearch={(next) => void navigate({ search: next, replace: true })} />;
}
