// The lesson's three examples. The engine owns their numbers; the page only adds token labels
// (T must equal the token count) and the values the controls show before the first run.

export const PRESETS = [
  {
    id: 'lesson-multi-head',
    label: 'Lesson: multi-head, 4 heads',
    tokens: ['the', 'cat', 'sat', 'on', 'mats'],
    config: { seed: 42, seqLen: 5, dModel: 16, numHeads: 4, dK: 4, dV: 4, causal: false, outputProjection: true, scaleScores: true },
  },
  {
    id: 'lesson-self-attention',
    label: 'Lesson: self-attention',
    tokens: ['the', 'cat', 'sat', 'on', 'mats'],
    config: { seed: 42, seqLen: 5, dModel: 8, numHeads: 1, dK: 4, dV: 4, causal: false, outputProjection: false, scaleScores: true },
  },
  {
    id: 'lesson-causal',
    label: 'Lesson: causal mask',
    tokens: ['the', 'cat', 'sat', 'down'],
    config: { seed: 42, seqLen: 4, dModel: 8, numHeads: 1, dK: 4, dV: 4, causal: true, outputProjection: false, scaleScores: true },
  },
];

export const DEFAULT_PRESET = 'lesson-multi-head';

export function presetById(id) {
  return PRESETS.find((p) => p.id === id) ?? null;
}

// Labels for T tokens when none were given: t0, t1, …
export function placeholderTokens(count) {
  return Array.from({ length: count }, (_, i) => `t${i}`);
}
