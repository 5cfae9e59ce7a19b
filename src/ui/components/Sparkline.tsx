/**
 * A run-by-run trend in a small inline chart: one point per run, oldest on the left, every
 * run drawn (no bucketing, so a history of 100 runs keeps each of them), the last one marked.
 * Gaps (a run without the value) break the line.
 */
export function Sparkline({ values, label, width = 140, height = 28 }: { values: (number | null)[]; label: string; width?: number; height?: number }) {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return <span className="muted">–</span>;
  let min = Math.min(...present);
  let max = Math.max(...present);
  if (max - min < 1e-9) {
    min -= 0.5;
    max += 0.5;
  }
  const pad = 3;
  const x = (i: number) => (values.length === 1 ? width / 2 : pad + (i * (width - 2 * pad)) / (values.length - 1));
  const y = (v: number) => pad + (1 - (v - min) / (max - min)) * (height - 2 * pad);
  const segments: string[] = [];
  let current = '';
  values.forEach((v, i) => {
    if (v === null) {
      if (current) segments.push(current);
      current = '';
      return;
    }
    current += `${current ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  });
  if (current) segments.push(current);
  const lastIndex = values.length - 1 - [...values].reverse().findIndex((v) => v !== null);
  const last = values[lastIndex]!;
  const dots = values.length <= 40;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <title>{label}</title>
      {segments.map((d, i) => (
        <path key={i} d={d} fill="none" stroke="var(--mantine-color-indigo-6)" strokeWidth={1.5} strokeLinejoin="round" />
      ))}
      {dots && values.map((v, i) => (v === null ? null : <circle key={i} cx={x(i)} cy={y(v)} r={1.6} fill="var(--mantine-color-indigo-6)" />))}
      <circle cx={x(lastIndex)} cy={y(last)} r={3} fill="var(--mantine-color-indigo-8)" />
    </svg>
  );
}
