import { Table } from '@mantine/core';
import { formatFullTime, formatRelative } from '../lib/format.ts';

/** A table cell with when something happened: relative ("3 min ago"), the full time on hover. */
export function TimeCell({ at }: { at: string | number }) {
  return (
    <Table.Td className="nowrap" title={formatFullTime(at)}>
      {formatRelative(typeof at === 'string' ? Date.parse(at) : at)}
    </Table.Td>
  );
}
