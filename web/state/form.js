// The controls' form as data, and how one edited field changes it. Editing anything but the
// tokens (or the tokens' count) turns a preset into a custom configuration with the same values.

import { DEFAULT_PRESET, presetById } from '../model/presets.js';
import { splitTokens } from '../model/validate.js';

export function presetForm(id) {
  const p = presetById(id) ?? presetById(DEFAULT_PRESET);
  const c = p.config;
  return {
    preset: p.id,
    tokens: p.tokens.join(' '),
    dModel: String(c.dModel),
    heads: String(c.numHeads),
    dK: String(c.dK),
    dV: String(c.dV),
    seed: String(c.seed),
    causal: c.causal,
    outputProjection: c.outputProjection,
    noScale: !c.scaleScores,
  };
}

export function changeField(form, field, value) {
  if (field === 'preset') return value === 'custom' ? { ...form, preset: 'custom' } : presetForm(value);
  const next = { ...form, [field]: value };
  const preset = presetById(form.preset);
  if (preset) {
    const sameCount = field === 'tokens' && splitTokens(value).length === preset.config.seqLen;
    if (!sameCount) next.preset = 'custom';
  }
  return next;
}

// The form that shows an engine config (after a run), keeping the page's preset and tokens.
export function formFromConfig(form, config) {
  return {
    ...form,
    dModel: String(config.dModel),
    heads: String(config.numHeads),
    dK: String(config.dK),
    dV: String(config.dV),
    seed: config.seed === null || config.seed === undefined ? form.seed : String(config.seed),
    causal: config.causal,
    outputProjection: config.outputProjection,
    noScale: !config.scaleScores,
  };
}
