// Finds where a provider or tool uses a session's id as a key: the sign of a
// per-session table kept outside the session scope. Syntactic (the
// TypeScript parser, no type checker), so it reads names:
// - a session id is `<x>.id` where <x> is (or ends in) `session`, `owner` or
//   `caller` (`session.id`, `spec.session?.id`, `owner?.id`), a `.sessionId`
//   or `.ownerId` property, an identifier named `sessionId` or `ownerId`, or
//   a local variable initialised from one (`const key = session?.id ?? ''`);
// - it is used as a key when it is an argument of a `.get/.set/.has/.delete/.add`
//   call (a Map or Set keyed by it), a property value of an object literal
//   passed to `.set/.add/.push` (a table of records carrying the owner's id),
//   or one side of an (in)equality whose other side is not a literal (a fence
//   by id: comparing stored ids instead of finding the state by the session).
import ts from 'typescript';

export interface SessionKeyUse {
  readonly line: number;
  /** The enclosing method or function (`''` at the top level). */
  readonly within: string;
  readonly text: string;
}

const SESSION_HOLDER = /(^|\.)(session|owner|caller)$/i;
const ID_NAMES = new Set(['sessionId', 'ownerId']);
const TABLE_METHODS = new Set(['get', 'set', 'has', 'delete', 'add']);
const STORE_METHODS = new Set(['set', 'add', 'push']);
const EQUALITIES = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Parentheses, `!`, `as`, and the fallback of `a ?? b` taken off. */
function core(node: ts.Expression): ts.Expression {
  if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node) || ts.isAsExpression(node)) return core(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return core(node.left);
  return node;
}

function isLiteral(node: ts.Expression): boolean {
  const bare = core(node);
  return (
    ts.isLiteralExpression(bare) ||
    ts.isNoSubstitutionTemplateLiteral(bare) ||
    bare.kind === ts.SyntaxKind.NullKeyword ||
    bare.kind === ts.SyntaxKind.TrueKeyword ||
    bare.kind === ts.SyntaxKind.FalseKeyword ||
    (ts.isIdentifier(bare) && bare.text === 'undefined')
  );
}

export function sessionKeyUses(source: string, fileName = 'source.ts'): SessionKeyUse[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  // Variables that hold a session id, by the function (or file) that declares them.
  const tainted = new Map<ts.Node, Set<string>>();
  const holdsId = (name: ts.Identifier): boolean => {
    if (ID_NAMES.has(name.text)) return true;
    for (let at: ts.Node | undefined = name; at; at = at.parent) if (tainted.get(at)?.has(name.text)) return true;
    return false;
  };
  const isSessionId = (node: ts.Expression): boolean => {
    const bare = core(node);
    if (ts.isIdentifier(bare)) return holdsId(bare);
    if (ts.isPropertyAccessExpression(bare)) {
      if (ID_NAMES.has(bare.name.text)) return true;
      return bare.name.text === 'id' && SESSION_HOLDER.test(bare.expression.getText(file).replace(/[?!]/g, ''));
    }
    return false;
  };
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isSessionId(node.initializer)) {
      const scope = enclosingFunction(node) ?? file;
      tainted.set(scope, (tainted.get(scope) ?? new Set()).add(node.name.text));
    }
    ts.forEachChild(node, collect);
  };
  collect(file);

  const uses: SessionKeyUse[] = [];
  const report = (node: ts.Node): void => {
    uses.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, within: enclosingName(node), text: node.getText(file).split('\n')[0]!.trim() });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (TABLE_METHODS.has(method) && node.arguments.some(isSessionId)) report(node);
      else if (STORE_METHODS.has(method) && node.arguments.some((arg) => storesSessionId(arg, isSessionId))) report(node);
    }
    if (ts.isBinaryExpression(node) && EQUALITIES.has(node.operatorToken.kind)) {
      const [left, right] = [node.left, node.right];
      if (!isLiteral(left) && !isLiteral(right) && (isSessionId(left) || isSessionId(right))) report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}

function storesSessionId(arg: ts.Expression, isSessionId: (node: ts.Expression) => boolean): boolean {
  const bare = core(arg);
  return ts.isObjectLiteralExpression(bare) && bare.properties.some((p) => ts.isPropertyAssignment(p) && isSessionId(p.initializer));
}

function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) if (ts.isFunctionLike(at)) return at;
  return undefined;
}

function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isMethodDeclaration(at) || ts.isFunctionDeclaration(at) || ts.isGetAccessorDeclaration(at)) && at.name) {
      return at.name.getText();
    }
  }
  return '';
}
