import { Table } from '@mantine/core';
import { IconArrowDown, IconArrowUp } from '@tabler/icons-react';

/**
 * A table's sortable column headers, for lists sorted on the server (users, threads): a header
 * sorts by its column, a second press turns the direction; a new column starts descending,
 * except `ascendingColumn` (the id column), which starts ascending.
 */
export function sortHeaders<K extends string>(sort: K, dir: 'asc' | 'desc', ascendingColumn: K, onSort: (column: K, dir: 'asc' | 'desc') => void) {
  return function SortHeader(column: K, label: string, numeric = false) {
    return (
      <Table.Th aria-sort={sort === column ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'} className={numeric ? 'num' : undefined}>
        <button
          type="button"
          className="th-sort"
          title={`Sort by ${label.toLowerCase()}`}
          onClick={() => onSort(column, sort === column ? (dir === 'asc' ? 'desc' : 'asc') : column === ascendingColumn ? 'asc' : 'desc')}
        >
          {label}
          {sort === column && (dir === 'asc' ? <IconArrowUp size={12} aria-hidden /> : <IconArrowDown size={12} aria-hidden />)}
        </button>
      </Table.Th>
    );
  };
}
