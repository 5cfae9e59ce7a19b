import type { ReactNode } from 'react';
import { Button, Group } from '@mantine/core';

/**
 * A dialog's last row, right-aligned: the way out ("Cancel", or "Close" once there is nothing
 * left to cancel), then the dialog's action, given as children so that each keeps its own
 * label, state and kind (a form's submit or a click).
 */
export function DialogActions({ onClose, closeLabel = 'Cancel', children }: { onClose: () => void; closeLabel?: ReactNode; children?: ReactNode }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onClose}>
        {closeLabel}
      </Button>
      {children}
    </Group>
  );
}
