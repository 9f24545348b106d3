/**
 * A recursive-descent parser for DynamoDB's expression language: condition (also filter and key
 * condition), projection and update expressions. Each distinct expression string is parsed once
 * and cached (the adapters send a handful of distinct strings millions of times); name and value
 * placeholders stay symbolic in the tree and are resolved per request.
 */
import { validation } from './errors.ts';

/** A document path step: an attribute or map key (a literal name or a #placeholder), or a list index. */
export type PathStep = { readonly name: string; readonly placeholder: boolean } | { readonly index: number };
export interface PathNode {
  readonly kind: 'path';
  readonly steps: readonly PathStep[];
}
export type Operand =
  | PathNode
  | { readonly kind: 'value'; readonly ref: string }
  | { readonly kind: 'size'; readonly path: PathNode };
export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type Condition =
  | { readonly kind: 'compare'; readonly op: Comparator; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'between'; readonly subject: Operand; readonly low: Operand; readonly high: Operand }
  | { readonly kind: 'in'; readonly subject: Operand; readonly list: readonly Operand[] }
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'not'; readonly operand: Condition }
  | { readonly kind: 'exists' | 'not_exists'; readonly path: PathNode }
  | { readonly kind: 'type' | 'begins_with' | 'contains'; readonly path: PathNode; readonly arg: Operand };

export type SetValue =
  | Operand
  | { readonly kind: 'if_not_exists'; readonly path: PathNode; readonly fallback: SetValue }
  | { readonly kind: 'list_append'; readonly a: SetValue; readonly b: SetValue }
  | { readonly kind: 'plus' | 'minus'; readonly a: SetValue; readonly b: SetValue };
export interface UpdateAst {
  readonly set: readonly { readonly path: PathNode; readonly value: SetValue }[];
  readonly remove: readonly PathNode[];
  readonly add: readonly { readonly path: PathNode; readonly ref: string }[];
  readonly delete: readonly { readonly path: PathNode; readonly ref: string }[];
  /** Every placeholder the expression uses, for the unused/undefined checks. */
  readonly names: readonly string[];
  readonly values: readonly string[];
}
export interface Parsed<T> {
  readonly ast: T;
  readonly names: readonly string[];
  readonly values: readonly string[];
}

type Token = { t: 'id' | 'name' | 'value' | 'num' | 'op'; v: string };

const TOKEN = /\s*(?:(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|([A-Za-z_][A-Za-z0-9_]*)|([0-9]+)|(<>|<=|>=|[=<>(),.[\]+-]))/y;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (!m) throw validation(`Invalid expression: Syntax error; token: "${src.slice(at, at + 10)}", near: "${src}"`);
    at = TOKEN.lastIndex;
    if (m[1]) out.push({ t: 'name', v: m[1] });
    else if (m[2]) out.push({ t: 'value', v: m[2] });
    else if (m[3]) out.push({ t: 'id', v: m[3] });
    else if (m[4]) out.push({ t: 'num', v: m[4] });
    else out.push({ t: 'op', v: m[5] as string });
  }
  return out;
}

class Parser {
  private i = 0;
  readonly names = new Set<string>();
  readonly values = new Set<string>();
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  fail(): never {
    const tok = this.tokens[this.i];
    throw validation(`Invalid expression: Syntax error; token: "${tok ? tok.v : '<EOF>'}", near: "${this.src}"`);
  }
  peek(): Token | undefined {
    return this.tokens[this.i];
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
  isOp(v: string): boolean {
    const t = this.tokens[this.i];
    return t !== undefined && t.t === 'op' && t.v === v;
  }
  isWord(w: string): boolean {
    const t = this.tokens[this.i];
    return t !== undefined && t.t === 'id' && t.v.toUpperCase() === w;
  }
  /** A function call ahead: an identifier directly followed by `(`. */
  isCall(): string | undefined {
    const t = this.tokens[this.i];
    const n = this.tokens[this.i + 1];
    return t?.t === 'id' && n?.t === 'op' && n.v === '(' ? t.v : undefined;
  }
  expectOp(v: string): void {
    if (!this.isOp(v)) this.fail();
    this.i++;
  }
  expectWord(w: string): void {
    if (!this.isWord(w)) this.fail();
    this.i++;
  }

  path(): PathNode {
    const steps: PathStep[] = [];
    const first = this.peek();
    if (!first || (first.t !== 'id' && first.t !== 'name')) this.fail();
    this.i++;
    if (first.t === 'name') this.names.add(first.v);
    steps.push({ name: first.v, placeholder: first.t === 'name' });
    for (;;) {
      if (this.isOp('.')) {
        this.i++;
        const t = this.peek();
        if (!t || (t.t !== 'id' && t.t !== 'name')) this.fail();
        this.i++;
        if (t.t === 'name') this.names.add(t.v);
        steps.push({ name: t.v, placeholder: t.t === 'name' });
      } else if (this.isOp('[')) {
        this.i++;
        const t = this.peek();
        if (t?.t !== 'num') this.fail();
        this.i++;
        this.expectOp(']');
        steps.push({ index: Number(t.v) });
      } else return { kind: 'path', steps };
    }
  }

  valueRef(): string {
    const t = this.peek();
    if (t?.t !== 'value') this.fail();
    this.i++;
    this.values.add(t.v);
    return t.v;
  }

  operand(): Operand {
    const call = this.isCall();
    if (call !== undefined) {
      if (call !== 'size') this.fail();
      this.i += 2;
      const path = this.path();
      this.expectOp(')');
      return { kind: 'size', path };
    }
    const t = this.peek();
    if (t?.t === 'value') return { kind: 'value', ref: this.valueRef() };
    return this.path();
  }

  // condition := disjunct (OR disjunct)*; AND binds tighter, then NOT, then comparisons.
  condition(): Condition {
    let left = this.conjunct();
    while (this.isWord('OR')) {
      this.i++;
      left = { kind: 'or', left, right: this.conjunct() };
    }
    return left;
  }
  conjunct(): Condition {
    let left = this.negation();
    while (this.isWord('AND')) {
      this.i++;
      left = { kind: 'and', left, right: this.negation() };
    }
    return left;
  }
  negation(): Condition {
    if (this.isWord('NOT')) {
      this.i++;
      return { kind: 'not', operand: this.negation() };
    }
    return this.primary();
  }
  primary(): Condition {
    if (this.isOp('(')) {
      this.i++;
      const c = this.condition();
      this.expectOp(')');
      return c;
    }
    const call = this.isCall();
    if (call !== undefined && call !== 'size') {
      this.i += 2;
      let c: Condition;
      switch (call) {
        case 'attribute_exists':
          c = { kind: 'exists', path: this.path() };
          break;
        case 'attribute_not_exists':
          c = { kind: 'not_exists', path: this.path() };
          break;
        case 'attribute_type':
        case 'begins_with':
        case 'contains': {
          const path = this.path();
          this.expectOp(',');
          const arg = this.operand();
          c = { kind: call === 'attribute_type' ? 'type' : call, path, arg };
          break;
        }
        default:
          throw validation(`Invalid expression: Invalid function name; function: ${call}`);
      }
      this.expectOp(')');
      return c;
    }
    const left = this.operand();
    if (this.isWord('BETWEEN')) {
      this.i++;
      const low = this.operand();
      this.expectWord('AND');
      return { kind: 'between', subject: left, low, high: this.operand() };
    }
    if (this.isWord('IN')) {
      this.i++;
      this.expectOp('(');
      const list = [this.operand()];
      while (this.isOp(',')) {
        this.i++;
        list.push(this.operand());
      }
      this.expectOp(')');
      return { kind: 'in', subject: left, list };
    }
    const t = this.peek();
    if (t?.t === 'op' && ['=', '<>', '<', '<=', '>', '>='].includes(t.v)) {
      this.i++;
      return { kind: 'compare', op: t.v as Comparator, left, right: this.operand() };
    }
    return this.fail();
  }

  setValue(): SetValue {
    const a = this.setOperand();
    if (this.isOp('+') || this.isOp('-')) {
      const kind = this.isOp('+') ? 'plus' : 'minus';
      this.i++;
      return { kind, a, b: this.setOperand() };
    }
    return a;
  }
  setOperand(): SetValue {
    const call = this.isCall();
    if (call === 'if_not_exists') {
      this.i += 2;
      const path = this.path();
      this.expectOp(',');
      const fallback = this.setValue();
      this.expectOp(')');
      return { kind: 'if_not_exists', path, fallback };
    }
    if (call === 'list_append') {
      this.i += 2;
      const a = this.setValue();
      this.expectOp(',');
      const b = this.setValue();
      this.expectOp(')');
      return { kind: 'list_append', a, b };
    }
    if (call !== undefined) throw validation(`Invalid UpdateExpression: Invalid function name; function: ${call}`);
    const t = this.peek();
    if (t?.t === 'value') return { kind: 'value', ref: this.valueRef() };
    return this.path();
  }

  update(): Omit<UpdateAst, 'names' | 'values'> {
    const set: { path: PathNode; value: SetValue }[] = [];
    const remove: PathNode[] = [];
    const add: { path: PathNode; ref: string }[] = [];
    const del: { path: PathNode; ref: string }[] = [];
    const seen = new Set<string>();
    while (!this.done()) {
      const t = this.peek();
      const clause = t?.t === 'id' ? t.v.toUpperCase() : '';
      if (!['SET', 'REMOVE', 'ADD', 'DELETE'].includes(clause)) this.fail();
      if (seen.has(clause))
        throw validation(
          `Invalid UpdateExpression: The "${clause}" section can only be used once in an update expression;`,
        );
      seen.add(clause);
      this.i++;
      do {
        if (clause !== 'SET' && this.isOp(',')) this.i++;
        else if (clause === 'SET' && this.isOp(',')) this.i++;
        const path = this.path();
        if (clause === 'SET') {
          this.expectOp('=');
          set.push({ path, value: this.setValue() });
        } else if (clause === 'REMOVE') remove.push(path);
        else (clause === 'ADD' ? add : del).push({ path, ref: this.valueRef() });
      } while (this.isOp(','));
    }
    if (seen.size === 0) this.fail();
    return { set, remove, add, delete: del };
  }

  projection(): PathNode[] {
    const paths = [this.path()];
    while (this.isOp(',')) {
      this.i++;
      paths.push(this.path());
    }
    return paths;
  }
}

const conditions = new Map<string, Parsed<Condition>>();
const updates = new Map<string, UpdateAst>();
const projections = new Map<string, Parsed<PathNode[]>>();

function parseWith<T>(src: string, run: (p: Parser) => T): Parsed<T> {
  const p = new Parser(tokenize(src), src);
  if (p.done()) throw validation('Invalid expression: The expression can not be empty;');
  const ast = run(p);
  if (!p.done()) p.fail();
  return { ast, names: [...p.names], values: [...p.values] };
}

export function parseCondition(src: string): Parsed<Condition> {
  let hit = conditions.get(src);
  if (!hit) {
    hit = parseWith(src, (p) => p.condition());
    conditions.set(src, hit);
  }
  return hit;
}

export function parseUpdate(src: string): UpdateAst {
  let hit = updates.get(src);
  if (!hit) {
    const parsed = parseWith(src, (p) => p.update());
    hit = { ...parsed.ast, names: parsed.names, values: parsed.values };
    updates.set(src, hit);
  }
  return hit;
}

export function parseProjection(src: string): Parsed<PathNode[]> {
  let hit = projections.get(src);
  if (!hit) {
    hit = parseWith(src, (p) => p.projection());
    projections.set(src, hit);
  }
  return hit;
}
