import { Alert, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { useDefinition } from '../api/experiments.ts';

/** What an experiment page says when the dataset its setup runs on has been deleted: runs cannot start until another is chosen. */
export function DeletedDatasetNotice({ projectId, slug }: { projectId: string; slug: string }) {
  const definition = useDefinition(projectId, slug);
  const dataset = definition.data?.dataset;
  if (!dataset?.deleted) return null;
  return (
    <Alert color="orange" icon={<IconAlertTriangle size={16} />} title="This experiment's dataset was deleted" role="alert" data-testid="dataset-deleted" classNames={{ title: 'alert-title' }}>
      <Text size="sm">
        The setup runs on the dataset “{dataset.name}”, which has been deleted since. Its past runs stay as they were; to run again, choose another dataset in the{' '}
        <Link to="/p/$projectId/experiments/$slug/setup" params={{ projectId, slug }}>
          setup
        </Link>
        .
      </Text>
    </Alert>
  );
}
