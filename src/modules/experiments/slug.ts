/**
 * The slug rule of the experiments API: lowercase; `_ : ? &` and whitespace become `-`;
 * accented letters lose the accent; any other character that is not an ASCII letter or
 * digit is dropped; runs of `-` collapse and none lead or trail ("My_Dataset v2!" -> my-dataset-v2).
 */
export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[_:?&\s]/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}
