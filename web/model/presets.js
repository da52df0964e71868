// The examples the engine defines (engine.presets()) and the real models the engine describes (engine.models())
// (engine.models()), read once into a catalog the page passes around. The page adds nothing to
// them but lookups.

import { chapterById, DEFAULT_CHAPTER } from './chapters.js';

/** { presets, models, latentModels, limits } from the engine (limits: each spec field's range,
 * engine.limits()). */
export function catalogFrom(engine) {
  return Object.freeze({
    presets: engine.presets(),
    models: engine.models(),
    latentModels: engine.latentModels(),
    limits: engine.limits(),
  });
}

export function presetById(catalog, id) {
  return catalog.presets.find((p) => p.id === id) ?? null;
}

export function presetsOf(catalog, chapterId) {
  return catalog.presets.filter((p) => p.chapter === chapterId);
}

/** The chapter's first preset: what the chapter opens with. */
export function defaultPreset(catalog, chapterId) {
  const chapter = chapterById(chapterId) ? chapterId : DEFAULT_CHAPTER;
  return presetsOf(catalog, chapter)[0];
}

/** Whether a form with these words still shows preset p: the same number of tokens (and of
 * source tokens), and, where the words build X (the designed heads, the model's ids), the same words. */
export function keepsPreset(p, tokens, keyTokens = []) {
  if (tokens.length !== p.tokens.length || keyTokens.length !== (p.keyTokens ?? []).length) return false;
  const built = p.spec.kind === 'designed' || p.spec.kind === 'model';
  return !built || tokens.every((t, i) => t === p.tokens[i]);
}
