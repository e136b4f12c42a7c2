// The house rules of ARCHITECTURE.md as a check over source text: who may import whom, modules wired in one list, no
// import cycles, no module-level mutable state. Pure (a map of path -> source in, violations out), so it is tested on fixtures too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

export interface Violation {
  rule: 'module-boundary' | 'module-list' | 'platform-layer' | 'import-cycle' | 'mutable-state';
  file: string;
  detail: string;
}

/** Every `.ts` file under `root` (declaration files aside), keyed by its path relative to `root`'s parent, `src/...`. */
export function readSources(root: string, prefix = 'src'): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const relPath = `${rel}/${name}`;
      if (statSync(full).isDirectory()) walk(full, relPath);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.set(relPath, readFileSync(full, 'utf8'));
    }
  };
  walk(root, prefix);
  return files;
}

/** `src/modules/<name>` and `src/engine/<name>` folders are units whose only public face is their `index.ts`. */
function unitOf(path: string): string | null {
  const m = /^src\/(modules|engine)\/([^/]+)\//.exec(path);
  return m ? `src/${m[1]}/${m[2]}` : null;
}

function importsOf(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      specs.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return specs;
}

/** The file a relative specifier names (`./x.js` -> `x.ts`, a folder -> its `index.ts`), or null for packages. */
function resolve(from: string, spec: string, files: Map<string, string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}/index.ts`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/**
 * Top-level bindings that the file changes after they are made: a `let`/`var` assigned again, or a `const`
 * collection or object whose contents are changed (`.set`, `.add`, `.push`, `x.y = ...`, `delete x[k]`...).
 * Constant lookup tables (a `Set` that is only read) are fine.
 */
function mutableState(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const topLevel = new Map<string, 'let' | 'const'>();
  for (const stmt of sf.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    const kind =
      stmt.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)
        ? stmt.declarationList.flags & ts.NodeFlags.Const
          ? 'const'
          : 'let'
        : 'let';
    for (const d of stmt.declarationList.declarations) if (ts.isIdentifier(d.name)) topLevel.set(d.name.text, kind);
  }
  const found = new Set<string>();
  const MUTATORS = new Set([
    'set',
    'add',
    'delete',
    'clear',
    'push',
    'pop',
    'shift',
    'unshift',
    'splice',
    'sort',
    'reverse',
    'fill',
    'copyWithin',
  ]);
  const rootName = (e: ts.Expression): string | null => {
    while (
      ts.isPropertyAccessExpression(e) ||
      ts.isElementAccessExpression(e) ||
      ts.isParenthesizedExpression(e) ||
      ts.isNonNullExpression(e)
    )
      e = e.expression;
    return ts.isIdentifier(e) ? e.text : null;
  };
  // A name shadowed inside a function is not the top-level binding; good enough: only flag names not redeclared.
  const declaredInside = new Set<string>();
  const collectLocals = (node: ts.Node, depth: number) => {
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name) && depth > 0)
      declaredInside.add(node.name.text);
    const inFunction = ts.isFunctionLike(node) || ts.isClassLike(node);
    ts.forEachChild(node, (c) => collectLocals(c, depth + (inFunction ? 1 : 0)));
  };
  collectLocals(sf, 0);
  const visit = (node: ts.Node) => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const target = node.left;
      const name = rootName(target);
      if (name && topLevel.has(name) && !declaredInside.has(name)) {
        if (ts.isIdentifier(target) ? topLevel.get(name) === 'let' : true) found.add(name);
      }
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      const name = rootName(node.operand);
      if (name && topLevel.has(name) && !declaredInside.has(name)) found.add(name);
    } else if (ts.isDeleteExpression(node)) {
      const name = rootName(node.expression);
      if (name && topLevel.has(name) && !declaredInside.has(name)) found.add(name);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MUTATORS.has(node.expression.name.text)
    ) {
      const name = rootName(node.expression.expression);
      if (name && topLevel.has(name) && !declaredInside.has(name)) found.add(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...found];
}

/** Import cycles as lists of files, one per strongly connected component of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

/** The one file that builds every module (src/module-list.ts): outside the units, the only one that imports their faces. */
export const MODULE_LIST = 'src/module-list.ts';

/**
 * Checks the rules; `allowMutable` names `file:binding` pairs that may keep module-level state, `allowFaceImports`
 * files besides the module list that may import a module's face from outside the units (each with a reason where
 * it is declared).
 */
export function checkArchitecture(
  files: Map<string, string>,
  allowMutable: ReadonlySet<string> = new Set(),
  allowFaceImports: ReadonlySet<string> = new Set(),
): Violation[] {
  const violations: Violation[] = [];
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets: string[] = [];
    for (const spec of importsOf(file, text)) {
      const target = resolve(file, spec, files);
      if (!target) continue;
      targets.push(target);
      const from = unitOf(file);
      const to = unitOf(target);
      if (to && to !== from && target !== `${to}/index.ts`) {
        violations.push({ rule: 'module-boundary', file, detail: `imports ${target}; only ${to}/index.ts is public` });
      } else if (
        to &&
        !from &&
        !file.startsWith('src/platform/') &&
        file !== MODULE_LIST &&
        !allowFaceImports.has(file)
      ) {
        violations.push({
          rule: 'module-list',
          file,
          detail: `imports ${target}; modules are built and wired only by ${MODULE_LIST}`,
        });
      }
      if (file.startsWith('src/platform/') && !target.startsWith('src/platform/')) {
        violations.push({ rule: 'platform-layer', file, detail: `platform code imports ${target}` });
      }
    }
    graph.set(file, targets);
    for (const name of mutableState(file, text)) {
      if (!allowMutable.has(`${file}:${name}`))
        violations.push({
          rule: 'mutable-state',
          file,
          detail: `module-level binding '${name}' is changed after it is made`,
        });
    }
  }
  for (const component of cycles(graph)) {
    violations.push({ rule: 'import-cycle', file: component[0], detail: `import cycle: ${component.join(' -> ')}` });
  }
  return violations;
}
