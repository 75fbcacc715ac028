/* Hand-written port of generator/pages/messages.py's fill and explain: a {kind, params} record in
 * the reader's words, from the message tables the calculator's JSON carries (`messages`). A part
 * in [...] is said only when every field it names is given; integers get thousands separators,
 * nested records their own message (nested records are reasons), lists are joined with "、"
 * (billing tier ids by their names); a Latin word right after a Chinese character gets a space.
 * A record may name its table (`table`: the form tables of generator/pages/form_messages.py).
 * tests/test_messages.py runs both on the same records. */

import { groupedInt } from "./engine/py.js";

/** fill: `template` with its fields from `params`; `billing` names billing tier ids. */
export function fill(messages, billing, template, params) {
  const kept = template.replace(/\[([^\[\]]*)\]/g, (_, part) =>
    [...part.matchAll(/\{(\w+)\}/g)].every((m) => Object.hasOwn(params, m[1])) ? part : "");
  const word = (v) => {
    if (Array.isArray(v)) return v.map((b) => (typeof b === "object" ? explain(messages, billing, b, b.table) : billing[b] || b)).join("、");
    if (v !== null && typeof v === "object") return explain(messages, billing, v, v.table);
    // integers only (f"{v:,}"); toLocaleString's formatter set-up cost a phone ~15 ms
    return typeof v === "number" ? groupedInt(v) : v;
  };
  return kept.replace(/\{(\w+)\}/g, (_, k, at) => {
    if (!Object.hasOwn(params, k)) throw new Error(`message parameter ${k} missing`);
    const text = word(params[k]);
    return at > 0 && /[\u4e00-\u9fff]/.test(kept[at - 1]) && /^[A-Za-z0-9]/.test(text) ? " " + text : text;
  });
}

/** explain: a record in words; `table` is "reason" or "exclusion" (or the record's own `table`). */
export function explain(messages, billing, record, table = "reason") {
  const template = messages[record.table || table || "reason"][record.kind];
  if (template === undefined) throw new Error(`no message for ${record.table || table}.${record.kind}`);
  return fill(messages, billing, template, record.params);
}
