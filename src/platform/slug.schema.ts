/**
 * The slug rule (spec, Conventions 8), for datasets and experiments alike: accented letters lose
 * the accent (compatibility forms such as `ﬁ` become their letters); lowercase; `_ : ? &` and
 * whitespace become `-`; any other character that is not an ASCII letter or digit is dropped;
 * runs of `-` collapse to one and none lead or trail. `"My_Dataset v2!"` becomes `my-dataset-v2`.
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[_:?&\s]/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}
