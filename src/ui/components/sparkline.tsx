/** A small line chart of recent values (an SVG polyline), with the latest value written out. */
export function Sparkline({ label, unit, values, width = 220, height = 48 }: { label: string; unit: string; values: number[]; width?: number; height?: number }) {
  const last = values.at(-1);
  const max = Math.max(unit === '%' ? 100 : 0, ...values, 1e-9);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * height).toFixed(1)}`).join(' ');
  const text = last === undefined ? 'no samples yet' : `${last.toFixed(unit === '%' ? 0 : 2)}${unit}`;
  return (
    <figure className="sparkline" data-chart={label}>
      <figcaption><span>{label}</span> <strong>{text}</strong></figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${text}`}>
        {values.length > 1 ? <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" /> : null}
      </svg>
    </figure>
  );
}
