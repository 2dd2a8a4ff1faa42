import type { SyntaxNode } from './bash-grammar.js';
import { assignmentConcern, type CommandAnalysis, type CommandWord } from './command-words.js';
import { expandCommand } from './command-wrappers.js';
import { literalWord } from './shell-words.js';

/** Nodes that only hold other nodes (or text that runs nothing): their children are walked. */
const CONTAINERS = new Set([
  'program', 'list', 'pipeline', 'subshell', 'compound_statement', 'do_group', 'if_statement', 'elif_clause', 'else_clause',
  'while_statement', 'for_statement', 'case_statement', 'case_item', 'negated_command', 'redirected_statement',
  'command_substitution', 'process_substitution', 'function_definition', 'heredoc_redirect', 'heredoc_body',
  'herestring_redirect', 'file_redirect', 'string', 'concatenation', 'array', 'translated_string', 'variable_assignments',
  'variable_assignment', 'binary_expression', 'unary_expression', 'ternary_expression', 'parenthesized_expression',
  'postfix_expression', 'number', 'test_command', 'simple_expansion', 'expansion', 'subscript', 'arithmetic_expansion',
  'c_style_for_statement', 'brace_expression', 'command_name',
]);

/** Leaves: text with nothing in it that runs (checked for substitution syntax the parser left as text). */
const LEAVES = new Set([
  'word', 'raw_string', 'string_content', 'ansi_c_string', 'comment', 'heredoc_start', 'heredoc_content', 'heredoc_end',
  'variable_name', 'special_variable_name', 'file_descriptor', 'test_operator', 'regex', 'extglob_pattern',
]);

const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

interface Walk {
  readonly commands: (readonly CommandWord[])[];
  readonly unknown: Set<string>;
}

/**
 * Every simple command a bash syntax tree can run, in any position
 * (pipelines, lists, subshells, groups, substitutions, compound commands,
 * function bodies, here-documents, redirections, assignments), with the
 * reasons for anything the checker does not follow: parse errors, node types
 * it does not know, and constructs whose effect depends on values it cannot
 * see (see `expandCommand` for the command-level ones).
 */
export function analyzeSyntax(root: SyntaxNode): CommandAnalysis {
  const walk: Walk = { commands: [], unknown: new Set() };
  // A missing keyword (`if …; then rm` without `fi`) is an unnamed node the walk below does not meet.
  if (root.hasError) walk.unknown.add('the line is not valid bash');
  const joined = continuationInsideWord(root);
  if (joined !== undefined) walk.unknown.add(joined);
  visit(root, walk, false);
  return { commands: walk.commands, unknown: [...walk.unknown] };
}

function visit(node: SyntaxNode, walk: Walk, arithmetic: boolean): void {
  if (node.isError || node.isMissing) return void walk.unknown.add(`the line is not valid bash near \`${excerpt(node)}\``);
  const type = node.type;
  if (type === 'command') return visitCommand(node, walk);
  if (type === 'declaration_command' || type === 'unset_command') return visitDeclaration(node, walk);
  if (LEAVES.has(type)) return visitLeaf(node, walk, arithmetic);
  if (!CONTAINERS.has(type)) return void walk.unknown.add(`the parser's \`${type}\` node is not handled`);
  if (type === 'variable_assignment') checkAssignment(node, walk);
  if (type === 'expansion') checkExpansion(node, walk);
  if (type === 'unary_expression') checkVariableTest(node, walk);
  if (arithmetic && type === 'simple_expansion') walk.unknown.add(arithmeticReads(node));
  const inner = arithmetic || startsArithmetic(node);
  for (const child of node.namedChildren) {
    visit(child, walk, inner || (type === 'subscript' && child.equals(node.childForFieldName('index')!)) || testsNumbers(node));
  }
}

/**
 * bash removes a backslash-newline before it splits words, so `r\⏎m` is
 * `rm`; the grammar treats it as a line break between two tokens. Any
 * continuation with text right against both sides that no single token spans
 * is such a split.
 */
function continuationInsideWord(root: SyntaxNode): string | undefined {
  const text = root.text;
  for (let at = text.indexOf('\\\n'); at >= 0; at = text.indexOf('\\\n', at + 2)) {
    if (at === 0 || at + 2 >= text.length || /\s/.test(text[at - 1]!) || /\s/.test(text[at + 2]!)) continue;
    const node = root.descendantForIndex(at, at + 2);
    const token = node && (node.childCount === 0 || node.type === 'string' || node.type === 'heredoc_body');
    if (token && node.startIndex < at && node.endIndex > at + 2) continue;
    return `a backslash-newline joins \`${text.slice(Math.max(0, at - 10), at).trim()}\` to the next word, which the parser splits`;
  }
  return undefined;
}

/** `$(( ))`, `$[ ]`, `(( ))` and `for (( ))`: arithmetic, where a variable's value is itself evaluated. */
function startsArithmetic(node: SyntaxNode): boolean {
  if (node.type === 'arithmetic_expansion' || node.type === 'c_style_for_statement') return true;
  return node.type === 'compound_statement' && node.child(0)?.type === '((';
}

/** `[[ a -eq b ]]` compares arithmetic expressions. */
function testsNumbers(node: SyntaxNode): boolean {
  return node.type === 'binary_expression' && ARITHMETIC_TESTS.has(node.childForFieldName('operator')?.text ?? '');
}

function visitLeaf(node: SyntaxNode, walk: Walk, arithmetic: boolean): void {
  const text = node.text;
  if (node.type !== 'raw_string' && node.type !== 'ansi_c_string' && node.type !== 'comment' && hasUnparsedSubstitution(text)) {
    walk.unknown.add(`\`${excerpt(node)}\` holds substitution syntax the parser left as text`);
  }
  if (!arithmetic) return;
  if (node.type === 'variable_name' || ((node.type === 'word' || node.type === 'string_content') && !/^(?:[0-9][0-9A-Za-z#@_]*|[@*])$/.test(text.trim()))) {
    walk.unknown.add(arithmeticReads(node));
  }
}

/** An unescaped backtick or `$(`, `${`, `$[` inside what the parser calls plain text. */
function hasUnparsedSubstitution(text: string): boolean {
  return /`|\$[({[]/.test(text.replace(/\\[\s\S]/g, ''));
}

function arithmeticReads(node: SyntaxNode): string {
  return `arithmetic reads \`${excerpt(node)}\` (a variable's value is evaluated there and can run commands)`;
}

function visitCommand(node: SyntaxNode, walk: Walk): void {
  const name = node.childForFieldName('name');
  const words = [name, ...node.childrenForFieldName('argument')].filter((word): word is SyntaxNode => word !== null).map(commandWord);
  record(walk, words);
  for (const child of node.namedChildren) visit(child, walk, false);
}

/** `declare`/`export`/`local`/`readonly`/`typeset`/`unset`: the keyword is the command name, `NAME=value` arguments keep their name. */
function visitDeclaration(node: SyntaxNode, walk: Walk): void {
  const keyword = node.child(0)!;
  const words: CommandWord[] = [{ literal: keyword.text, expands: false, source: keyword.text }];
  for (const child of node.namedChildren) {
    if (child.type !== 'variable_assignment') words.push(commandWord(child));
    else {
      const assigns = child.childForFieldName('name')?.text ?? '';
      const value = child.childForFieldName('value');
      const literal = value === null ? { value: '', expands: false } : literalWord(value);
      words.push({ assigns, source: child.text, expands: false, ...(literal === undefined ? {} : { literal: `${assigns}=${literal.value}` }) });
    }
    visit(child, walk, false);
  }
  record(walk, words);
}

function record(walk: Walk, words: readonly CommandWord[]): void {
  const expanded = expandCommand(words);
  walk.commands.push(...expanded.commands);
  for (const reason of expanded.unknown) walk.unknown.add(reason);
}

function commandWord(node: SyntaxNode): CommandWord {
  const literal = literalWord(node);
  return literal === undefined ? { expands: true, source: node.text } : { literal: literal.value, expands: literal.expands, source: node.text };
}

function checkAssignment(node: SyntaxNode, walk: Walk): void {
  const concern = assignmentConcern(node.childForFieldName('name')?.text ?? '');
  if (concern !== undefined) walk.unknown.add(concern);
}

/** `[[ -v name ]]` evaluates a subscript in the name: `[[ -v 'a[$(rm x)]' ]]` runs `rm`. */
function checkVariableTest(node: SyntaxNode, walk: Walk): void {
  const operator = node.childForFieldName('operator')?.text;
  if (operator !== '-v' && operator !== '-R') return;
  const operand = node.namedChildren.find((child) => child.type !== 'test_operator');
  if (operand && /[[$`]/.test(operand.text)) walk.unknown.add(`\`${operator} ${excerpt(operand)}\` evaluates a subscript or expanded name`);
}

/** `${!name}` and `${name@P}` evaluate a variable's value; a substring offset is arithmetic. */
function checkExpansion(node: SyntaxNode, walk: Walk): void {
  const text = node.text;
  if (text.startsWith('${!')) walk.unknown.add(`\`${excerpt(node)}\` expands a variable named by another variable's value`);
  if (/@P\}$/.test(text)) walk.unknown.add(`\`${excerpt(node)}\` expands a value as a prompt, which runs its substitutions`);
  const offset = /^\$\{[A-Za-z_0-9@*]+(?:\[[^\]]*\])?:([^-=?+][^}]*)\}$/.exec(text);
  if (offset && /[A-Za-z_]/.test(offset[1]!)) walk.unknown.add(`\`${excerpt(node)}\` has an arithmetic offset that reads a variable`);
}

function excerpt(node: SyntaxNode): string {
  const text = node.text.replace(/\s+/g, ' ').trim();
  return text.length > 40 ? `${text.slice(0, 40)}…` : text || node.type;
}
