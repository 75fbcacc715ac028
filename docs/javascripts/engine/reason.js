/* Hand-written port of generator/engine/reason.py: what the engine says about an option, as
 * {kind, params} records (Reason.record()); calculator.js words them from the message table the
 * page's JSON carries (generator/pages/messages.py REASON_ZH). */

/** A reason record: its kind and the figures its message names (nested reasons as records). */
export const reason = (kind, params = {}) => ({ kind, params });
