/* Hand-written port of generator/engine/reason.py: what the engine says about an option, as
 * {kind, params} records (Reason.record()); calculator.js words them from the message table the
 * page's JSON carries (generator/pages/messages.py REASON_ZH). */

/** A reason record: its kind and the figures its message names (nested reasons as records). */
export const reason = (kind, params = {}) => ({ kind, params });

/** A form error record (the calculator's fields, config.json): words in generator/pages/form_messages.py
 * FORM_ZH; `table` tells messages.js which table words it when it is nested. */
export const form = (kind, params = {}) => ({ table: "form", kind, params });

/** A name from one of the form tables (`field`: a flag's name; `config_part`: what a config.json key holds). */
export const label = (table, kind) => ({ table, kind, params: {} });
