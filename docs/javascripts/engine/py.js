/* Hand-written. Python's arithmetic and number formats where they differ from JavaScript's,
 * so that the port of generator/engine computes and prints the same digits:
 * round() rounds halves to even, f"{x:.1f}" rounds the exact binary value half to even,
 * sum() adds left to right (CPython 3.11; 3.12+ compensates, which differs only in the last bit),
 * max(key=) keeps the first of equal items, and int * int is exact at any size. */

/** Python's round(x) for a float: the nearest integer, halves to even. */
export function pyRound(x) {
  const f = Math.floor(x);
  const d = x - f; // exact for |x| < 2^52
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Decimal digits of |x| with `digits` places, rounded like Python's format (half to even on the exact value). */
function fixedAbs(x, digits) {
  const a = Math.abs(x);
  let s = a.toFixed(digits); // nearest; on an exact tie toFixed picks the larger
  const exact = a.toFixed(100);
  const dot = exact.indexOf(".");
  const tail = exact.slice(dot + 1 + digits);
  if (/^50*$/.test(tail)) {
    const lastDigit = Number(s[s.length - 1]);
    if (lastDigit % 2 === 1) {
      // toFixed went up to an odd digit; Python stays at the even one below
      const units = BigInt(s.replace(".", "")) - 1n;
      const text = units.toString().padStart(digits + 1, "0");
      s = digits ? text.slice(0, text.length - digits) + "." + text.slice(text.length - digits) : text;
    }
  }
  return s;
}

/** f"{x:.{digits}f}" */
export function fixed(x, digits) {
  const s = fixedAbs(x, digits);
  return x < 0 && /[1-9]/.test(s) ? "-" + s : s;
}

function group(intText) {
  return intText.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** f"{x:,.{digits}f}" */
export function grouped(x, digits) {
  const s = fixed(x, digits);
  const neg = s[0] === "-";
  const body = neg ? s.slice(1) : s;
  const dot = body.indexOf(".");
  const whole = dot < 0 ? body : body.slice(0, dot);
  return (neg ? "-" : "") + group(whole) + (dot < 0 ? "" : body.slice(dot));
}

/** f"{n:,}" for an integer */
export function groupedInt(n) {
  return (n < 0 ? "-" : "") + group(String(Math.abs(n)));
}

/** generator.formats.cny: '¥84,480' */
export function cny(value, digits = 0) {
  return value === null || value === undefined ? "—" : "¥" + grouped(value, digits);
}

/** f"{x:.0%}" (CPython multiplies the float by 100, then formats it) */
export function percent(x) {
  return fixed(x * 100, 0) + "%";
}

/** f"{x:g}" for the figures the engine prints (datasheet numbers below a million). */
export function general(x) {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x);
  const s = x.toPrecision(6);
  if (s.includes("e")) {
    const [m, e] = s.split("e");
    const exp = Number(e);
    const mant = m.includes(".") ? m.replace(/\.?0+$/, "") : m;
    return mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** Python's round(x, n) for a float: the float nearest the correctly rounded decimal. */
export function roundTo(x, n) {
  return Number(fixed(x, n));
}

/** Python's sum() of floats (3.11: left to right, starting from 0). */
export function sum(values) {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** max(items, key=key): the first item with the largest key. */
export function maxBy(items, key) {
  let best;
  let bestKey = -Infinity;
  let first = true;
  for (const item of items) {
    const k = key(item);
    if (first || k > bestKey) {
      best = item;
      bestKey = k;
      first = false;
    }
  }
  return best;
}

/** a * b * … for Python ints: exact at any size, then the nearest float (what Python does when a
 * float meets the product). Below 2^53 this is plain multiplication. */
export function imul(...ints) {
  let p = 1;
  for (const v of ints) p *= v;
  if (Math.abs(p) <= Number.MAX_SAFE_INTEGER) return p;
  let big = 1n;
  for (const v of ints) big *= BigInt(v);
  return Number(big);
}

/** Python's a // b for integers */
export function floorDiv(a, b) {
  return Math.floor(a / b);
}

/** Python's sorted(key=tuple): compare two key tuples element by element. */
export function compareTuples(a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}
