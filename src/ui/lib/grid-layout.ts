/** A chart's place on the dashboard grid, in cells. */
export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Placed {
  id: string;
  layout: Cell;
}

const collide = (a: Cell, b: Cell) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * A grid layout as react-grid-layout's vertical one: the item `id` goes to `to` (moved or
 * resized), the items it lands on are pushed aside (one it was dragged down over takes its
 * place above it when there is room, the others go below it, and what they land on in turn),
 * then every item floats up as far as it can. The answer never overlaps; items keep their order.
 */
export function placeItem<T extends Placed>(items: T[], id: string, to: Cell, columns: number): T[] {
  const from = items.find((i) => i.id === id)?.layout;
  if (!from) return items;
  const w = Math.min(Math.max(1, to.w), columns);
  const target: Cell = { x: Math.min(Math.max(0, to.x), columns - w), y: Math.max(0, to.y), w, h: Math.max(1, to.h) };
  const cells = new Map(items.map((i) => [i.id, { ...(i.id === id ? target : i.layout) }]));
  const movingDown = target.y > from.y;
  pushAside(cells, id, movingDown);
  compact(cells, id);
  return items.map((i) => {
    const c = cells.get(i.id)!;
    return c.x === i.layout.x && c.y === i.layout.y && c.w === i.layout.w && c.h === i.layout.h ? i : { ...i, layout: c };
  });
}

/** The items on `id`, top first: above it when it came down over them and there is room, else below it. */
function pushAside(cells: Map<string, Cell>, id: string, movingDown: boolean) {
  const mover = cells.get(id)!;
  const hit = [...cells].filter(([other, c]) => other !== id && collide(c, mover)).sort((a, b) => a[1].y - b[1].y);
  for (const [other, c] of hit) {
    if (!collide(c, mover)) continue;
    const above = { ...c, y: mover.y - c.h };
    if (movingDown && above.y >= 0 && ![...cells].some(([k, d]) => k !== other && collide(d, above))) {
      c.y = above.y;
      continue;
    }
    c.y = mover.y + mover.h;
    pushAside(cells, other, false);
  }
}

/** Every item up as far as it goes, top-left first (the moved one first of its row). */
function compact(cells: Map<string, Cell>, moved: string) {
  const order = [...cells].sort(([a, p], [b, q]) => p.y - q.y || (a === moved ? -1 : b === moved ? 1 : p.x - q.x));
  const placed: Cell[] = [];
  for (const [, c] of order) {
    while (c.y > 0 && !placed.some((p) => collide(p, { ...c, y: c.y - 1 }))) c.y--;
    for (let p = placed.find((q) => collide(q, c)); p; p = placed.find((q) => collide(q, c))) c.y = p.y + p.h;
    placed.push(c);
  }
}
