/** One row of a side-by-side diff: a line on the left, on the right, or both. */
export interface DiffRow {
  kind: 'same' | 'removed' | 'added' | 'changed';
  left: { n: number; text: string } | null;
  right: { n: number; text: string } | null;
}

/**
 * Line diff of two texts (longest common subsequence), paired for side-by-side display: a
 * run of removed lines next to a run of added ones becomes "changed" rows. Prompts are
 * short; past 3,000 lines a side the texts are compared line by line instead.
 */
export function diffLines(before: string, after: string): DiffRow[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const ops: ('=' | '-' | '+')[] = [];
  if (a.length * b.length > 9_000_000) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i < a.length && i < b.length && a[i] === b[i]) ops.push('=');
      else {
        if (i < a.length) ops.push('-');
        if (i < b.length) ops.push('+');
      }
    }
  } else {
    // lcs[i][j]: the common subsequence length of a[i..] and b[j..]
    const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        ops.push('=');
        i++;
        j++;
      } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
        ops.push('+');
        j++;
      } else {
        ops.push('-');
        i++;
      }
    }
  }

  const rows: DiffRow[] = [];
  let ai = 0;
  let bi = 0;
  let k = 0;
  while (k < ops.length) {
    if (ops[k] === '=') {
      rows.push({ kind: 'same', left: { n: ai + 1, text: a[ai] }, right: { n: bi + 1, text: b[bi] } });
      ai++;
      bi++;
      k++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (k < ops.length && ops[k] !== '=') {
      if (ops[k] === '-') removed.push(ai++);
      else added.push(bi++);
      k++;
    }
    for (let r = 0; r < Math.max(removed.length, added.length); r++) {
      const l = removed[r];
      const rr = added[r];
      rows.push({
        kind: l !== undefined && rr !== undefined ? 'changed' : l !== undefined ? 'removed' : 'added',
        left: l !== undefined ? { n: l + 1, text: a[l] } : null,
        right: rr !== undefined ? { n: rr + 1, text: b[rr] } : null,
      });
    }
  }
  return rows;
}
