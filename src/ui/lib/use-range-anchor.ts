import { useState } from 'react';
import { anchorKey, rangeAnchor, type ListSearch } from './list-search.ts';

/**
 * The instant relative ranges ("last hour") count back from: taken when the range or its
 * custom ends change, not on every render, so the request (a query key) stays the same
 * between changes. Taken while rendering (React renders again at once with the new value).
 */
export function useRangeAnchor(search: Pick<ListSearch, 'range' | 'from' | 'to'>): number {
  const key = anchorKey(search);
  const [anchor, setAnchor] = useState(() => ({ key, at: rangeAnchor(search) }));
  if (anchor.key !== key) setAnchor(() => ({ key, at: rangeAnchor(search) }));
  return anchor.at;
}
