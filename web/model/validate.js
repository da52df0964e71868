// The page's own checks on the controls, for immediate messages that name the rule. The engine
// checks again; its message is shown too when it rejects a spec these checks let through.

import { presetById } from './presets.js';

// Page limits keep every matrix legible (T ≤ 64) and the page responsive; the engine's are wider.
export const LIMITS = { tokens: 64, dModel: 512, heads: 16, headDim: 512, seed: 4294967295 };

// "the cat  sat" → ['the', 'cat', 'sat']
export function splitTokens(text) {
  return String(text ?? '').trim().split(/\s+/).filter(Boolean);
}

function wholeNumber(raw, lo, hi) {
  const text = String(raw ?? '').trim();
  if (!/^\d+$/.test(text)) return null;
  const v = Number(text);
  return v >= lo && v <= hi ? v : null;
}

function checkTokens(form, errors) {
  const tokens = splitTokens(form.tokens);
  if (tokens.length < 1 || tokens.length > LIMITS.tokens) {
    errors.tokens = `Enter between 1 and ${LIMITS.tokens} tokens separated by spaces (T = number of tokens; now ${tokens.length}).`;
  }
  return tokens;
}

function checkSizes(form, errors) {
  const dModel = wholeNumber(form.dModel, 1, LIMITS.dModel);
  if (dModel === null) errors.dModel = `d_model must be a whole number from 1 to ${LIMITS.dModel}.`;
  const heads = wholeNumber(form.heads, 1, LIMITS.heads);
  if (heads === null) errors.heads = `heads must be a whole number from 1 to ${LIMITS.heads}.`;
  if (dModel !== null && heads !== null && dModel % heads !== 0) {
    errors.heads = `d_model must be divisible by heads (${dModel} is not a multiple of ${heads}).`;
  }
  const headDim = (field, name) => {
    if (String(form[field] ?? '').trim() === '') return undefined; // blank: d_model / heads
    const v = wholeNumber(form[field], 1, LIMITS.headDim);
    if (v === null) errors[field] = `${name} must be a whole number from 1 to ${LIMITS.headDim}, or blank for d_model / heads.`;
    return v ?? undefined;
  };
  return { dModel, heads, dK: headDim('dK', 'd_k'), dV: headDim('dV', 'd_v') };
}

// Is this form exactly a preset (same sizes, switches and token count)? Then ask for the preset.
function matchesPreset(form, tokens) {
  const p = presetById(form.preset);
  return p && tokens.length === p.config.seqLen ? p : null;
}

/**
 * form: { preset, tokens, dModel, heads, dK, dV, seed, causal, outputProjection, noScale }
 * → { errors: { field: message }, ok, tokens, spec } where spec is what engine.run takes.
 */
export function validateForm(form) {
  const errors = {};
  const tokens = checkTokens(form, errors);
  const preset = matchesPreset(form, tokens);
  if (preset) return { errors, ok: !errors.tokens, tokens, spec: { preset: preset.id } };
  const sizes = checkSizes(form, errors);
  const seed = wholeNumber(form.seed, 0, LIMITS.seed);
  if (seed === null) errors.seed = `seed must be a whole number from 0 to ${LIMITS.seed}.`;
  const ok = Object.keys(errors).length === 0;
  const spec = ok
    ? {
        seed,
        seqLen: tokens.length,
        dModel: sizes.dModel,
        numHeads: sizes.heads,
        ...(sizes.dK !== undefined ? { dK: sizes.dK } : {}),
        ...(sizes.dV !== undefined ? { dV: sizes.dV } : {}),
        causal: Boolean(form.causal),
        outputProjection: Boolean(form.outputProjection),
        scaleScores: !form.noScale,
      }
    : null;
  return { errors, ok, tokens, spec };
}
