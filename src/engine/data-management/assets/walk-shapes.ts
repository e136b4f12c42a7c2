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
  /** Queries answered by the general page since the guards were last read (an unusable kind is read again now and then). */
  uses: number;
}
