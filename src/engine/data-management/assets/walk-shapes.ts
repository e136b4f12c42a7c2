/**
 * What the last query of a shape (its filters, sort path and sort mode) found before its page: the kind of the values
 * at its sort path where one kind of exact scalar is there (undefined otherwise), its total and the highest asset id.
 * A guess for the next query of the shape, which then needs no statement of guards before its page (AssetLists.walk):
 * the guesses choose only which statement runs first, never what is answered (the statements check them in SQL).
 */
export interface WalkShape {
  kind?: number;
  total: number;
  max: number;
  /** Queries answered from this guess since the guards were last read (a kind found unusable is read again now and then). */
  uses: number;
}

/** The shapes queried lately, at most `capacity`, the least recently used forgotten first. Pure bookkeeping. */
export class WalkShapes {
  /** In order of last use, the least recent first (a Map keeps insertion order; a use re-inserts). */
  private readonly shapes = new Map<string, WalkShape>();

  constructor(private readonly capacity = 1_000) {}

  get(key: string): WalkShape | undefined {
    const shape = this.shapes.get(key);
    if (shape) {
      this.shapes.delete(key);
      this.shapes.set(key, shape);
    }
    return shape;
  }

  set(key: string, shape: WalkShape): void {
    this.shapes.delete(key);
    if (this.shapes.size >= this.capacity) this.shapes.delete(this.shapes.keys().next().value as string);
    this.shapes.set(key, shape);
  }
}
