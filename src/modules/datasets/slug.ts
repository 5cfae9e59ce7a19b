/**
 * The slug rule (spec, Conventions 8): lowercase; `_ : ? &` and whitespace become `-`;
 * accented letters lose the accent; any other character that is not an ASCII letter or digit
 * is dropped; runs of `-` collapse to one and none lead or trail.
 * `"My_Dataset v2!"` becomes `my-dataset-v2`.
 */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[_:?&\s]/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}
