/**
 * A strict RFC 4180 reader for tests: quoted fields with doubled quotes, commas and line
 * breaks inside quotes, CRLF or LF line ends. Throws on a stray quote.
 *
 * @module
 */

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n')
          throw new Error(`stray character after a closing quote at ${i}`);
      } else {
        field += c;
        i++;
      }
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new Error(`quote inside an unquoted field at ${i}`);
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' || c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Rows as objects keyed by the header row. */
export function csvObjects(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r) => {
    if (r.length !== header.length) throw new Error(`row has ${r.length} fields, header ${header.length}`);
    return Object.fromEntries(header.map((h, i) => [h, r[i] as string]));
  });
}
