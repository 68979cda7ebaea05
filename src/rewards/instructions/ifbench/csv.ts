/**
 * `list(csv.reader(io.StringIO(text), delimiter=d))` with Python's default (excel) dialect, which
 * three IFBench checkers parse responses with (CPython Modules/_csv.c, non-strict mode):
 * - records end at "\n" or "\r\n" outside quotes; an empty line is a record with no fields ([]);
 *   no record follows a final line break;
 * - a field that starts with `"` is quoted: `""` inside it is one `"`, the next lone `"` closes it
 *   and any characters after that, up to the delimiter, are appended as they are;
 * - a `"` inside an unquoted field is an ordinary character; no white space is skipped.
 * Python raises on a "\r" inside an unquoted field without a following "\n" (the reference then
 * crashes); here it ends the record like "\r\n".
 */
export function readCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let started = false; // the record has a character (so it has at least one field)
  let atFieldStart = true;
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
    atFieldStart = true;
  };
  const endRecord = () => {
    if (started) endField();
    rows.push(row);
    row = [];
    started = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
      continue;
    }
    if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRecord();
      continue;
    }
    started = true;
    if (c === delimiter) endField();
    else if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else {
      field += c;
      atFieldStart = false;
    }
  }
  if (started) endRecord();
  return rows;
}
