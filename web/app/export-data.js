// The export menu's data for the current state: the files it offers (named, made only when
// asked for), a link to this stage and an <attention-stepper> snippet. Built on every render,
// but cheap: the files themselves are made by save(format) when a button is pressed, the link
// and the snippet by link() and snippet() when the menu is open.
//   exportMenuData(s, view, catalog, within) → { formats, link(), snippet(), save(format) }
// within: a node of the stepper (is it in an element's shadow root? where to put the <a>).

import { assetUrl } from '../asset-url.js';
import { currentHead } from '../model/navigation.js';
import { FORMATS, fileBase, stageFile, stageScene } from '../model/export/files.js';
import { elementAttributes, elementSnippet } from '../state/snippet.js';
import { hashFromState } from '../state/url-hash.js';
import { scenePng } from '../views/scene-canvas.js';
import { saveFile } from './downloads.js';

const inElement = (node) => typeof ShadowRoot !== 'undefined' && node.getRootNode() instanceof ShadowRoot;

// The page links to itself with the view in its hash (as main.js writes it); an element, whose
// host page knows nothing of its state, links to the full page beside its script (index.html),
// at the same view: a learner inside an embed shares where they are.
function linkTo(s, catalog, where, within) {
  const hash = hashFromState(catalog, {
    form: s.form,
    stage: where.stage,
    head: where.head,
    time: where.time,
    selection: s.selection,
    showContributions: s.showContributions,
  });
  const page = inElement(within) ? assetUrl('index.html') : window.location.href.split('#')[0];
  return `${page}${hash}`;
}

async function save(format, ctx, within) {
  if (format !== 'png') return saveFile(stageFile(format, ctx), within);
  const blob = await scenePng(stageScene(ctx));
  return saveFile({ filename: `${fileBase(ctx)}.png`, mime: 'image/png', data: blob }, within);
}

export function exportMenuData(s, view, catalog, within) {
  const step = s.steps[s.step];
  const where = {
    stage: step.id,
    head: step.head === null ? null : currentHead(s.steps, s.step, s.head),
    time: step.step,
  };
  let attrs = null;
  const attributes = () => (attrs ??= elementAttributes(catalog, s.form, where));
  const ctx = {
    stage: step.stage,
    view,
    config: s.trace.config,
    spec: s.preset?.spec ?? s.spec,
    trace: s.trace,
    preset: s.preset?.id ?? null,
    chapter: s.form.chapter,
    theme: s.theme,
  };
  const base = fileBase(ctx);
  return {
    // A stage without a result of its own (all heads side by side) saves no file: each head's weights do.
    formats: (view.figure.some((i) => i.result) ? FORMATS : []).map((f) => ({
      id: f.id,
      label: f.label,
      hint: f.hint,
      filename: `${base}.${f.ext}`,
    })),
    link: () => linkTo(s, catalog, where, within),
    snippet: () => elementSnippet(attributes()),
    save: (format) => save(format, ctx, within),
  };
}
