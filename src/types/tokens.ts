/**
 * Token-exactness of a multi-turn conversation, decided once for the engine (which reports each
 * step whose prompt does not extend the previous turn) and `algorithms/datums.ts` (which merges
 * such steps into one training row only when it does).
 *
 *     step k extends step k−1  ⇔  promptIds_k begins with promptIds_{k−1} ⧺ completionIds_{k−1}
 *
 * i.e. the model saw its own sampled tokens again, not a re-tokenization of their text.
 */

/** Whether `seq` begins with `prefix`, element by element. */
export function hasPrefix(seq: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > seq.length) return false;
  for (let i = 0; i < prefix.length; i++) if (seq[i] !== prefix[i]) return false;
  return true;
}

/**
 * Where `next`'s prompt stops extending `prev`'s prompt + completion: null when it extends them
 * (or when either side has no ids to compare: a hosted API), else the index of the first token
 * that differs (the prompt's length when it is shorter than the previous turn).
 */
export function prefixBreakAt(
  prev: { promptIds: readonly number[]; completionIds: readonly number[] },
  next: { promptIds: readonly number[] },
): number | null {
  if (prev.promptIds.length === 0 || next.promptIds.length === 0) return null;
  const turn = [...prev.promptIds, ...prev.completionIds];
  if (hasPrefix(next.promptIds, turn)) return null;
  let i = 0;
  while (i < turn.length && i < next.promptIds.length && turn[i] === next.promptIds[i]) i++;
  return i;
}
