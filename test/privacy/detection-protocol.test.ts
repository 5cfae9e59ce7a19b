import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { privateText2kb } from '../../bench/privacy.ts';
import { ALL_ENTITIES, compilePatterns, patternFindings, piiDetector, type Finding } from '../../src/modules/privacy/detect.ts';
import { packBatch, unpackBatch, type PackedFindings } from '../../src/modules/privacy/detection-protocol.ts';

type AnyFinding = Finding & { text?: string };

/** One text's findings packed: a batch of one. */
function packFindings(findings: readonly AnyFinding[]): PackedFindings {
  return packBatch([findings]);
}

/** What packFindings packed; null when what came is not such a packing. */
function unpackFindings(packed: PackedFindings): Finding[] | null {
  const texts = unpackBatch(packed, 1);
  return texts ? texts[0] : null;
}

/** The packing as the main thread receives it from a worker: through a message port, its numbers moved. */
async function across(packed: PackedFindings): Promise<PackedFindings> {
  const { port1, port2 } = new MessageChannel();
  try {
    const received = new Promise<PackedFindings>((resolve) => port2.once('message', resolve));
    port1.postMessage(packed, [packed.numbers.buffer]);
    return await received;
  } finally {
    port1.close();
    port2.close();
  }
}

/** The findings with their fields in order, so that an object made with other fields or another order differs. */
const shapes = (findings: readonly Finding[]) => findings.map((f) => Object.entries(f));

describe('detection answers: findings packed by a worker, unpacked on the main thread', () => {
  const patterns = compilePatterns([
    { name: 'TICKET', pattern: 'ticket \\d+' },
    { name: 'SMILE', pattern: '😀+' },
  ]);
  const texts = [
    ...Array.from({ length: 40 }, (_, i) => privateText2kb(i * 7919)),
    // Astral characters (offsets in code points), a lone surrogate, a type's text that is empty.
    'Call Maria Gonzalez 😀😀 at +1 303 555 0147 about ticket 4411, maria@example.com \uD83D alone',
    '😀 ticket 12 from Lyon, IBAN DE89 3704 0044 0532 0130 00',
    'nothing personal here',
  ];

  it('gives back the very findings detection made (engine findings with their text, pattern findings without)', async () => {
    let seen = 0;
    for (const text of texts) {
      const findings: Finding[] = [...piiDetector(text, ALL_ENTITIES), ...patternFindings(text, patterns)];
      seen += findings.length;
      const expected = structuredClone(findings);
      const unpacked = unpackFindings(await across(packFindings(findings)));
      expect(unpacked).toStrictEqual(expected);
      expect(shapes(unpacked!)).toStrictEqual(shapes(expected));
    }
    expect(seen).toBeGreaterThan(1000);
  });

  it('gives back a batch text by text: the findings of each, null for a text that failed, nothing mixed between texts', async () => {
    const batch = texts.slice(0, 12).map((text, i) => (i % 5 === 3 ? null : [...piiDetector(text, ALL_ENTITIES), ...patternFindings(text, patterns)]));
    batch.push([], null);
    const expected = structuredClone(batch);
    const unpacked = unpackBatch(await across(packBatch(batch)), batch.length);
    expect(unpacked).toStrictEqual(expected);
    expect(unpacked!.map((f) => (f ? shapes(f) : null))).toStrictEqual(expected.map((f) => (f ? shapes(f) : null)));
    // Read as another number of texts, the packing is not one: every text fails.
    expect(unpackBatch(packBatch(batch), batch.length - 1)).toBeNull();
    expect(unpackBatch(packBatch(batch), batch.length + 1)).toBeNull();
  });

  it('keeps the exact numbers (-0, fractions, large offsets)', async () => {
    const findings = [
      { entity_type: 'A', start: 0, end: 2 ** 40, score: 0.1 + 0.2, text: '' },
      { entity_type: 'B', start: -0, end: 3, score: 1 / 3 },
      { entity_type: '', start: 5, end: 5, score: 0 },
    ];
    const unpacked = unpackFindings(await across(packFindings(findings)));
    expect(unpacked).toStrictEqual(findings);
    expect(Object.is(unpacked![1].start, -0)).toBe(true);
  });

  it('reads a packing that is not one as a failure (null), so the text is stored as [redaction failed]', () => {
    const good = packFindings([{ entity_type: 'PERSON', start: 0, end: 5, score: 0.85, text: 'Maria' }]);
    expect(unpackFindings({ numbers: good.numbers, strings: good.strings + 'x' })).toBeNull();
    expect(unpackFindings({ numbers: good.numbers.slice(0, 4), strings: good.strings })).toBeNull();
    expect(unpackFindings({ numbers: [0, 5, 0.85, 6, 5] as unknown as Float64Array<ArrayBuffer>, strings: good.strings })).toBeNull();
    expect(unpackFindings({ numbers: good.numbers, strings: 1 as unknown as string })).toBeNull();
  });
});
