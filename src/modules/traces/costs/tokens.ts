/**
 * Token estimates for text and chat messages, for spans that arrive without usage counts and
 * for budgeting LLM-judge prompts.
 *
 * Encodings (the BPE ranks and pre-tokenizer patterns shipped in js-tiktoken):
 *  - o200k_base: gpt-4o, gpt-4.1, gpt-4.5, the o-series, gpt-5, gpt-oss: exact.
 *  - cl100k_base: gpt-4, gpt-3.5, the embedding models: exact; and every non-OpenAI model, whose
 *    tokenizers are not shipped here: a fair estimate, not the provider's count.
 *
 * Why the merge step is our own: js-tiktoken's byte-pair merge rescans and re-joins the whole
 * piece after every merge, which is quadratic per pre-tokenized piece. Measured here: 100K
 * characters of ordinary Chinese/Japanese prose take 2.5-3 s, one 3,000-character run without
 * punctuation 10-13 s, 4,000 repeated letters 1.3 s. TokenCounter keeps js-tiktoken's ranks, its
 * pattern and tiktoken's merge rule (lowest rank first, leftmost on ties) but finds the next merge
 * with a heap, O(n log n) per piece. Its counts equal js-tiktoken's Tiktoken.encode(...).length
 * (the tests compare them on mixed, CJK and pathological text for both encodings).
 *
 * Speed after that (this machine, 2 shared cores, warm): 100 KB of English 5-40 ms (1.5-4.7M
 * tokens/s), of Chinese/Japanese prose 50-85 ms (0.85-1.8M tokens/s), of one repeated letter
 * 40-90 ms. Building both encodings' rank maps costs 0.4-0.9 s once per process;
 * warmUpTokenizers() moves that to start-up.
 *
 * Texts longer than MAX_EXACT_CHARS are counted exactly on their first and last
 * MAX_EXACT_CHARS / 2 characters and the middle is extrapolated at the same characters-per-token
 * rate, so one huge payload cannot hold the event loop for long. Below that size counts are exact.
 */
import { createRequire } from 'node:module';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export const MAX_EXACT_CHARS = 512 * 1024;

interface RankData {
  pat_str: string;
  bpe_ranks: string;
}

// The ranks are loaded on the first estimate, not at start: together they take ~35 MB and
// a few hundred ms to load, and many servers never estimate a token (docs/performance.md: Overload, memory and start).
const require = createRequire(import.meta.url);
const RANK_MODULES: Readonly<Record<EncodingName, string>> = { o200k_base: 'js-tiktoken/ranks/o200k_base', cl100k_base: 'js-tiktoken/ranks/cl100k_base' };
const loadRanks = (name: EncodingName): RankData => {
  const mod = require(RANK_MODULES[name]) as RankData | { default: RankData };
  return 'default' in mod ? mod.default : mod;
};

// Byte strings are kept as "binary" strings: one char per byte (latin1), so a slice of a piece is
// a ready map key and ASCII text needs no conversion at all.
function toByteString(piece: string): string {
  for (let i = 0; i < piece.length; i++) {
    if (piece.charCodeAt(i) > 0x7f) return Buffer.from(piece, 'utf8').toString('latin1');
  }
  return piece;
}

/** A min-heap of non-negative numbers (merge candidates encoded as rank * pieceLength + start). */
class NumberHeap {
  private items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (p <= value) break;
      items[i] = p;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number {
    const items = this.items;
    const top = items[0];
    const last = items.pop() as number;
    const n = items.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        let child = left;
        if (right < n && (items[right]) < (items[left])) child = right;
        const c = items[child];
        if (c >= last) break;
        items[i] = c;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

class TokenCounter {
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;

  constructor(data: RankData) {
    this.pattern = new RegExp(data.pat_str, 'gu');
    // Same format js-tiktoken reads: lines of "<label> <first rank> <base64 token> <base64 token> ...".
    for (const line of data.bpe_ranks.split('\n')) {
      if (line === '') continue;
      const fields = line.split(' ');
      const offset = Number.parseInt(fields[1] ?? '', 10);
      for (let k = 2; k < fields.length; k++) {
        this.ranks.set(Buffer.from(fields[k], 'base64').toString('latin1'), offset + k - 2);
      }
    }
  }

  count(text: string): number {
    const re = this.pattern;
    re.lastIndex = 0;
    let total = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const piece = m[0];
      if (piece.length === 0) {
        re.lastIndex++;
        continue;
      }
      const bytes = toByteString(piece);
      total += this.ranks.has(bytes) ? 1 : this.mergeCount(bytes);
    }
    return total;
  }

  private rankOf(bytes: string, start: number, next: Int32Array): number {
    const n = bytes.length;
    const second = next[start];
    if (second >= n) return -1;
    const rank = this.ranks.get(bytes.slice(start, next[second]));
    return rank === undefined ? -1 : rank;
  }

  /** Number of tokens tiktoken's byte-pair merge leaves for one piece. */
  private mergeCount(bytes: string): number {
    const n = bytes.length;
    if (n <= 1) return n;
    // Parts are identified by their first byte; next/prev link the live parts in order.
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const pairRank = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const heap = new NumberHeap();
    for (let i = 0; i < n - 1; i++) {
      const rank = this.rankOf(bytes, i, next);
      pairRank[i] = rank;
      if (rank >= 0) heap.push(rank * n + i);
    }
    pairRank[n - 1] = -1;

    let parts = n;
    while (heap.size > 0) {
      const key = heap.pop();
      const start = key % n;
      const rank = (key - start) / n;
      // Stale entries (the part was absorbed or its pair changed) no longer carry its rank.
      if (pairRank[start] !== rank) continue;
      const absorbed = next[start];
      const after = next[absorbed];
      next[start] = after;
      if (after < n) prev[after] = start;
      pairRank[absorbed] = -1;
      parts--;

      const own = this.rankOf(bytes, start, next);
      pairRank[start] = own;
      if (own >= 0) heap.push(own * n + start);
      const before = prev[start];
      if (before >= 0) {
        const left = this.rankOf(bytes, before, next);
        pairRank[before] = left;
        if (left >= 0) heap.push(left * n + before);
      }
    }
    return parts;
  }
}

const counters = new Map<EncodingName, TokenCounter>();

function getCounter(name: EncodingName): TokenCounter {
  let counter = counters.get(name);
  if (!counter) {
    counter = new TokenCounter(loadRanks(name));
    counters.set(name, counter);
  }
  return counter;
}

/** Builds both encodings' rank maps now instead of on the first estimate. */
export function warmUpTokenizers(): void {
  getCounter('cl100k_base');
  getCounter('o200k_base');
}

const O200K_MODEL = /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d(?:-|$)|codex-|computer-use)/;

/** The encoding used for `model`: o200k_base for OpenAI's 2024+ generations, else cl100k_base. */
export function encodingForModel(model?: string | null): EncodingName {
  if (typeof model !== 'string') return 'cl100k_base';
  let name = model.trim().toLowerCase();
  if (name.startsWith('ft:')) name = name.slice(3).split(':')[0] ?? '';
  name = name.slice(name.lastIndexOf('/') + 1).replace(/^(?:[a-z-]+\.)?openai\./, '');
  return O200K_MODEL.test(name) ? 'o200k_base' : 'cl100k_base';
}

// Moves a cut back to just after whitespace (at most 1 KB back) so a word is not split in two,
// and never between the halves of a surrogate pair.
function softCut(text: string, at: number): number {
  for (let i = at; i > at - 1024 && i > 0; i--) {
    const c = text.charCodeAt(i - 1);
    if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) return i;
  }
  const c = text.charCodeAt(at - 1);
  return c >= 0xd800 && c <= 0xdbff ? at + 1 : at;
}

/**
 * Number of tokens in `text` for `model`: exact for OpenAI models up to MAX_EXACT_CHARS
 * characters, an estimate beyond that and for other providers' models. Special-token strings
 * such as "<|endoftext|>" are counted as the plain text they are.
 */
export function estimateTokens(text: string, model?: string | null): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const counter = getCounter(encodingForModel(model));
  if (text.length <= MAX_EXACT_CHARS) return counter.count(text);

  const half = MAX_EXACT_CHARS / 2;
  const head = text.slice(0, softCut(text, half));
  const tail = text.slice(softCut(text, text.length - half));
  const sampled = counter.count(head) + counter.count(tail);
  return Math.round((sampled * text.length) / (head.length + tail.length));
}

export interface ChatContentPart {
  type?: string;
  text?: string | null;
}

export interface ChatMessageLike {
  role: string;
  /** Text, or OpenAI-style content parts; only text parts are counted (images are not estimated). */
  content: string | readonly ChatContentPart[] | null | undefined;
  name?: string | null;
}

// OpenAI cookbook, "How to count tokens with tiktoken": each message is framed as
// <|start|>{role/name}\n{content}<|end|>\n, 3 tokens besides its role and content; a name adds
// its own tokens plus 1; the reply is primed with <|start|>assistant<|message|>, 3 tokens.
// The cookbook checks this against the API: 129 tokens (gpt-4, cl100k) and 124 (gpt-4o, o200k)
// for its example conversation, which the tests reproduce. Tool definitions are not counted.
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;

function contentText(content: ChatMessageLike['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content as readonly ChatContentPart[]) {
    if (part && typeof part.text === 'string' && (part.type === undefined || part.type === 'text')) {
      text += part.text;
    }
  }
  return text;
}

/**
 * Estimated completion tokens of a chat answer: its content alone. The framing of a reply
 * (<|start|>assistant<|message|> ... <|end|>) is part of the prompt (the priming above) or
 * not billed at all: OpenAI's completion_tokens count what the model wrote.
 */
export function estimateCompletionTokens(messages: readonly ChatMessageLike[], model?: string | null): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(contentText(message.content), model);
  return total;
}

/** Estimated prompt tokens of a chat request; 0 for no messages. */
export function estimateMessagesTokens(messages: readonly ChatMessageLike[], model?: string | null): number {
  if (messages.length === 0) return 0;
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE;
    total += estimateTokens(message.role, model);
    total += estimateTokens(contentText(message.content), model);
    if (message.name) total += estimateTokens(message.name, model) + TOKENS_PER_NAME;
  }
  return total;
}
