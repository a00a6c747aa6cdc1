/**
 * A table body that puts in the DOM only the rows near the window's viewport (plus `OVERSCAN` each
 * side), so a list of 10,000 runs costs what a screenful does. The page scrolls as a whole (no inner
 * scroll box): two spacer rows stand for the rows above and below. Rows are measured once rendered, so
 * a row taller than `estimate` (a long description) keeps its place. `aria-rowindex` tells assistive
 * technology where a row sits in the whole list (with `aria-rowcount` on the table: `rowCount`).
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState, type ReactNode, type Ref } from 'react';

const OVERSCAN = 12;

/** What a row element must carry: the virtualizer measures it by `ref` and finds it by `data-index`. */
export interface RowProps {
  ref: Ref<HTMLTableRowElement>;
  'data-index': number;
  'aria-rowindex': number;
}

/** `aria-rowcount` of a table whose header is one row above `n` data rows. */
export const rowCount = (n: number) => n + 1;

export function VirtualRows<T>({ items, estimate, columns, row, onEnd }: {
  items: readonly T[];
  /** A row's usual height in px (the first layout; measured rows replace it). */
  estimate: number;
  columns: number;
  row: (item: T, props: RowProps) => ReactNode;
  /** Called when the last row comes into the rendered window (to read the next page). */
  onEnd?: () => void;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  const [top, setTop] = useState(0);
  // Where the body starts in the document, again whenever the page's size changes: what lies above it
  // (filters, notices) can change height. Equal values do not re-render, so this settles at once.
  useLayoutEffect(() => {
    const measure = () => setTop(Math.round((body.current?.getBoundingClientRect().top ?? 0) + window.scrollY));
    measure();
    const seen = new ResizeObserver(measure);
    seen.observe(document.body);
    return () => seen.disconnect();
  }, []);
  const v = useWindowVirtualizer({
    count: items.length, estimateSize: () => estimate, overscan: OVERSCAN, scrollMargin: top,
    // The window's size from the first render: otherwise that render has no rows (an empty table flashes).
    initialRect: { width: window.innerWidth, height: window.innerHeight }, initialOffset: () => window.scrollY,
  });
  const shown = v.getVirtualItems();
  const last = shown.at(-1)?.index;
  useLayoutEffect(() => {
    if (last !== undefined && last >= items.length - 1) onEnd?.();
  }, [last, items.length, onEnd]);
  const before = (shown[0]?.start ?? top) - top;
  const after = v.getTotalSize() - ((shown.at(-1)?.end ?? top) - top);
  return (
    <tbody ref={body}>
      {before > 0 ? <Spacer height={before} columns={columns} /> : null}
      {shown.map((s) => row(items[s.index] as T, { ref: v.measureElement, 'data-index': s.index, 'aria-rowindex': s.index + 2 }))}
      {after > 0 ? <Spacer height={after} columns={columns} /> : null}
    </tbody>
  );
}

function Spacer({ height, columns }: { height: number; columns: number }) {
  return <tr className="spacer" aria-hidden="true" style={{ height }}><td colSpan={columns} /></tr>;
}
