/** A labelled number in a small box: result fields, dashboard totals. */
export function Stat({ label, value, testId, title }: { label: string; value: string; testId?: string; title?: string }) {
  return (
    <div className="stat" title={title}>
      <div className="stat-label">{label}</div>
      <div className="stat-value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
