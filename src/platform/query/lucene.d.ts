// The `lucene` package ships no types; its parser returns the plain-object AST described in lucene.grammar.
declare module 'lucene' {
  const lucene: { parse(query: string): unknown };
  export default lucene;
}
