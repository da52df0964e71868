// attention-stepper-katex.js: KaTeX as one classic script, loaded after the first paint by
// typeset.js (from file:// too). It sets a global of its own, not `katex`, so a host page's
// KaTeX (MkDocs, Jupyter Book) stays as it is.
import katex from 'katex';

globalThis.attentionStepperKatex = katex;
