/**
 * Evaluates parsed expressions against native items: conditions (ConditionExpression,
 * FilterExpression), projections and update expressions, with DynamoDB's semantics (a missing
 * attribute makes a comparison false; every SET right-hand side reads the item before the update;
 * ADD/DELETE on numbers and sets only).
 */
import { validation } from './errors.ts';
import type { Condition, Operand, PathNode, SetValue, UpdateAst } from './expression-parser.ts';
import { compareScalars, copyValue, deepEqual, type Item, setHas, typeOf } from './values.ts';

export interface Placeholders {
  readonly names?: Record<string, string> | undefined;
  readonly values?: Record<string, unknown> | undefined;
}

export function stepName(step: { name: string; placeholder: boolean }, ph: Placeholders): string {
  if (!step.placeholder) return step.name;
  const n = ph.names?.[step.name];
  if (n === undefined)
    throw validation(`Value provided in ExpressionAttributeNames unused in expressions or not defined: ${step.name}`);
  return n;
}

function placeholderValue(ref: string, ph: Placeholders): unknown {
  const v = ph.values?.[ref];
  if (v === undefined)
    throw validation(
      `Invalid expression: An expression attribute value used in expression is not defined; attribute value: ${ref}`,
    );
  return v;
}

/** The value at a document path, or undefined when any step is missing. */
export function resolvePath(item: Item | undefined, path: PathNode, ph: Placeholders): unknown {
  let cur: unknown = item;
  for (const step of path.steps) {
    if (cur === undefined || cur === null || typeof cur !== 'object') return undefined;
    if ('index' in step) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step.index];
    } else {
      if (Array.isArray(cur) || cur instanceof Set || cur instanceof Uint8Array) return undefined;
      cur = (cur as Item)[stepName(step, ph)];
    }
  }
  return cur;
}

function operandValue(item: Item | undefined, op: Operand, ph: Placeholders): unknown {
  switch (op.kind) {
    case 'value':
      return placeholderValue(op.ref, ph);
    case 'path':
      return resolvePath(item, op, ph);
    case 'size': {
      const v = resolvePath(item, op.path, ph);
      switch (typeOf(v)) {
        case 'S':
          return Buffer.byteLength(v as string, 'utf8');
        case 'B':
          return (v as Uint8Array).length;
        case 'SS':
        case 'NS':
        case 'BS':
          return (v as Set<unknown>).size;
        case 'L':
          return (v as unknown[]).length;
        case 'M':
          return Object.keys(v as Item).length;
        default:
          return undefined;
      }
    }
  }
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (op === '=') return deepEqual(a, b);
  if (op === '<>') return !deepEqual(a, b);
  const c = compareScalars(a, b);
  if (c === undefined) return false;
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

export function evaluate(cond: Condition, item: Item | undefined, ph: Placeholders): boolean {
  switch (cond.kind) {
    case 'and':
      return evaluate(cond.left, item, ph) && evaluate(cond.right, item, ph);
    case 'or':
      return evaluate(cond.left, item, ph) || evaluate(cond.right, item, ph);
    case 'not':
      return !evaluate(cond.operand, item, ph);
    case 'compare':
      return compare(cond.op, operandValue(item, cond.left, ph), operandValue(item, cond.right, ph));
    case 'between': {
      const v = operandValue(item, cond.subject, ph);
      const lo = operandValue(item, cond.low, ph);
      const hi = operandValue(item, cond.high, ph);
      return compare('>=', v, lo) && compare('<=', v, hi);
    }
    case 'in': {
      const v = operandValue(item, cond.subject, ph);
      return v !== undefined && cond.list.some((o) => deepEqual(v, operandValue(item, o, ph)));
    }
    case 'exists':
      return resolvePath(item, cond.path, ph) !== undefined;
    case 'not_exists':
      return resolvePath(item, cond.path, ph) === undefined;
    case 'type':
      return typeOf(resolvePath(item, cond.path, ph)) === operandValue(item, cond.arg, ph);
    case 'begins_with': {
      const v = resolvePath(item, cond.path, ph);
      const p = operandValue(item, cond.arg, ph);
      if (typeof v === 'string' && typeof p === 'string') return v.startsWith(p);
      if (v instanceof Uint8Array && p instanceof Uint8Array)
        return p.length <= v.length && p.every((b, i) => v[i] === b);
      return false;
    }
    case 'contains': {
      const v = resolvePath(item, cond.path, ph);
      const x = operandValue(item, cond.arg, ph);
      if (x === undefined) return false;
      if (typeof v === 'string') return typeof x === 'string' && v.includes(x);
      if (v instanceof Set) return setHas(v, x);
      if (Array.isArray(v)) return v.some((e) => deepEqual(e, x));
      return false;
    }
  }
}

/** The item cut down to the projected paths (nested paths keep their enclosing maps and lists). */
export function project(item: Item, paths: readonly PathNode[], ph: Placeholders): Item {
  const out: Item = {};
  for (const path of paths) {
    const v = resolvePath(item, path, ph);
    if (v === undefined) continue;
    if (path.steps.length === 1) {
      out[stepName(path.steps[0] as { name: string; placeholder: boolean }, ph)] = v;
      continue;
    }
    // Rebuild the enclosing structure; list indexes compact, as DynamoDB returns them.
    let src: unknown = item;
    let dst: Record<string, unknown> | unknown[] = out;
    path.steps.forEach((step, i) => {
      const key = 'index' in step ? step.index : stepName(step, ph);
      src = (src as Record<string | number, unknown>)[key];
      const last = i === path.steps.length - 1;
      const next = path.steps[i + 1];
      const container = dst as Record<string | number, unknown>;
      if (last) {
        if (Array.isArray(dst)) dst.push(copyValue(src));
        else container[key] = copyValue(src);
        return;
      }
      let child = Array.isArray(dst) ? undefined : container[key];
      if (child === undefined) {
        child = next && 'index' in next ? [] : {};
        if (Array.isArray(dst)) dst.push(child);
        else container[key] = child;
      }
      dst = child as Record<string, unknown> | unknown[];
    });
  }
  return out;
}

const incorrectType = () => validation('An operand in the update expression has an incorrect data type');

function setValue(old: Item | undefined, v: SetValue, ph: Placeholders): unknown {
  switch (v.kind) {
    case 'value':
    case 'path':
    case 'size': {
      const x = operandValue(old, v, ph);
      if (x === undefined && v.kind === 'path')
        throw validation('The provided expression refers to an attribute that does not exist in the item');
      return x;
    }
    case 'if_not_exists': {
      const x = resolvePath(old, v.path, ph);
      return x !== undefined ? x : setValue(old, v.fallback, ph);
    }
    case 'list_append': {
      const a = setValue(old, v.a, ph);
      const b = setValue(old, v.b, ph);
      if (!Array.isArray(a) || !Array.isArray(b)) throw incorrectType();
      return [...a, ...b];
    }
    case 'plus':
    case 'minus': {
      const a = setValue(old, v.a, ph);
      const b = setValue(old, v.b, ph);
      if (typeOf(a) !== 'N' || typeOf(b) !== 'N') throw incorrectType();
      return v.kind === 'plus' ? Number(a) + Number(b) : Number(a) - Number(b);
    }
  }
}

/** Writes `value` at `path` in `item` (mutating the fresh copy); the parent must exist. */
function assign(item: Item, path: PathNode, value: unknown, ph: Placeholders): void {
  let cur: unknown = item;
  const steps = path.steps;
  for (let i = 0; i < steps.length - 1; i++) {
    const step = steps[i] as (typeof steps)[number];
    cur =
      'index' in step
        ? Array.isArray(cur)
          ? cur[step.index]
          : undefined
        : typeOf(cur) === 'M'
          ? (cur as Item)[stepName(step, ph)]
          : undefined;
    if (cur === undefined || typeof cur !== 'object' || cur === null)
      throw validation('The document path provided in the update expression is invalid for update');
  }
  const last = steps[steps.length - 1] as (typeof steps)[number];
  if ('index' in last) {
    if (!Array.isArray(cur))
      throw validation('The document path provided in the update expression is invalid for update');
    if (last.index >= cur.length) cur.push(value);
    else cur[last.index] = value;
  } else {
    if (typeOf(cur) !== 'M')
      throw validation('The document path provided in the update expression is invalid for update');
    (cur as Item)[stepName(last, ph)] = value;
  }
}

function removeAt(item: Item, path: PathNode, ph: Placeholders): void {
  const steps = path.steps;
  const parent = steps.length === 1 ? item : resolvePath(item, { kind: 'path', steps: steps.slice(0, -1) }, ph);
  const last = steps[steps.length - 1] as (typeof steps)[number];
  if ('index' in last) {
    if (Array.isArray(parent) && last.index < parent.length) parent.splice(last.index, 1);
  } else if (typeOf(parent) === 'M') delete (parent as Item)[stepName(last, ph)];
}

/**
 * The item after an update expression, built on a deep copy of `old` (never mutated), and the
 * top-level attributes the update touched (for ReturnValues UPDATED_OLD / UPDATED_NEW).
 */
export function applyUpdate(
  old: Item | undefined,
  base: Item,
  ast: UpdateAst,
  ph: Placeholders,
  keyNames: readonly string[],
): { item: Item; touched: Set<string> } {
  const item = base;
  const touched = new Set<string>();
  const seenPaths: string[] = [];
  const mark = (path: PathNode) => {
    const top = stepName(path.steps[0] as { name: string; placeholder: boolean }, ph);
    if (keyNames.includes(top))
      throw validation(
        `One or more parameter values were invalid: Cannot update attribute ${top}. This attribute is part of the key`,
      );
    const id = path.steps.map((s) => ('index' in s ? `[${s.index}]` : `.${stepName(s, ph)}`)).join('');
    for (const p of seenPaths)
      if (
        p === id ||
        p.startsWith(`${id}.`) ||
        p.startsWith(`${id}[`) ||
        id.startsWith(`${p}.`) ||
        id.startsWith(`${p}[`)
      )
        throw validation(
          `Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [${p}], path two: [${id}]`,
        );
    seenPaths.push(id);
    touched.add(top);
  };
  // Right-hand sides read the item as it was before this update.
  const sets = ast.set.map((s) => {
    mark(s.path);
    return { path: s.path, value: setValue(old, s.value, ph) };
  });
  for (const r of ast.remove) mark(r);
  for (const a of ast.add) mark(a.path);
  for (const d of ast.delete) mark(d.path);
  for (const s of sets) assign(item, s.path, copyValue(s.value), ph);
  for (const r of ast.remove) removeAt(item, r, ph);
  for (const a of ast.add) {
    const add = placeholderValue(a.ref, ph);
    const cur = resolvePath(item, a.path, ph);
    const ta = typeOf(add);
    if (ta === 'N') {
      if (cur !== undefined && typeOf(cur) !== 'N') throw incorrectType();
      assign(item, a.path, (cur === undefined ? 0 : Number(cur)) + Number(add), ph);
    } else if (ta === 'SS' || ta === 'NS' || ta === 'BS') {
      if (cur !== undefined && typeOf(cur) !== ta) throw incorrectType();
      const next = new Set(cur === undefined ? [] : (cur as Set<unknown>));
      for (const x of add as Set<unknown>) if (!setHas(next, x)) next.add(copyValue(x));
      assign(item, a.path, next, ph);
    } else throw validation('Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD');
  }
  for (const d of ast.delete) {
    const del = placeholderValue(d.ref, ph);
    const cur = resolvePath(item, d.path, ph);
    const td = typeOf(del);
    if (td !== 'SS' && td !== 'NS' && td !== 'BS')
      throw validation('Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE');
    if (cur === undefined) continue;
    if (typeOf(cur) !== td) throw incorrectType();
    const next = new Set([...(cur as Set<unknown>)].filter((x) => !setHas(del as Set<unknown>, x)));
    if (next.size === 0) removeAt(item, d.path, ph);
    else assign(item, d.path, next, ph);
  }
  return { item, touched };
}
