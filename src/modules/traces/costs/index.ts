export {
  canonicalModelName,
  computeCost,
  findModelPrice,
  listModelPrices,
  modelSearchNames,
  normalizeModelName,
  providerPrefix,
  priceTableInfo,
  sumCostAmounts,
} from './prices.ts';
export type { Cost, CostBreakdown, CostInput, ModelPrice } from './prices.ts';
export {
  MAX_EXACT_CHARS,
  encodingForModel,
  estimateCompletionTokens,
  estimateMessagesTokens,
  estimateTokens,
  warmUpTokenizers,
} from './tokens.ts';
export type { ChatContentPart, ChatMessageLike, EncodingName } from './tokens.ts';
