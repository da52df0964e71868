// A snippet's drawn-in first stage (state/snippet.js fallbackSnippet) and the rules of a drawing
// (element/prerender.js), as text: what builder.html writes and what the build appends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prerenderRules, sameButColours, shareClasses } from '../../web/element/prerender.js';
import { fallbackSnippet } from '../../web/state/snippet.js';

test('fallbackSnippet: font preloads, KaTeX in the document, then the element holding its stage and rules', () => {
  const text = fallbackSnippet(
    [
      ['preset', 'lesson-causal'],
      ['quiz', null],
    ],
    'https://c.example/a"b/',
    {
      html: '<p>x</p>',
      css: '.a{}',
      fonts: ['vendor/katex/fonts/KaTeX_Main-Regular.subset.woff2'],
    },
  );
  assert.equal(
    text,
    '<link rel="preload" as="font" type="font/woff2" crossorigin ' +
      'href="https://c.example/a&quot;b/vendor/katex/fonts/KaTeX_Main-Regular.subset.woff2">\n' +
      '<link rel="stylesheet" href="https://c.example/a&quot;b/vendor/katex/katex.min.css">\n' +
      "<style>@property --pitch { syntax: '<length>'; inherits: true; initial-value: 0px; }</style>\n" +
      '<attention-stepper preset="lesson-causal" quiz class="theme-auto"><template shadowrootmode="open">' +
      '<link rel="stylesheet" href="https://c.example/a&quot;b/vendor/katex/katex.min.css">' +
      '<link rel="stylesheet" href="https://c.example/a&quot;b/attention-stepper.css">' +
      '<style>.a{}.as-fallback[hidden]:has(> .as-fallback-end) { display: block !important; }</style>' +
      '<div class="as-root as-fallback" hidden><p>x</p><i class="as-fallback-end" hidden></i></div>' +
      '</template></attention-stepper>',
  );
});

test('prerenderRules: each class in the light scheme, the dark scheme only where it differs', () => {
  const light = { html: 'h', fills: ['rgb(1,2,3)'], inks: ['red'], styles: ['--cols:4 !important', 'a:b !important'] };
  const dark = { html: 'h', fills: ['rgb(9,9,9)'], inks: ['white'], styles: ['--cols:4 !important', 'a:c !important'] };
  assert.equal(
    prerenderRules('label', light, dark),
    [
      '/* label */',
      '.pr-canvas { display: flex; }',
      '.ps-0 { --cols:4 !important; }',
      '.ps-1 { a:b !important; }',
      '.pf-0 { background-color: rgb(1,2,3) !important; }',
      '.pt-0 { color: red; }',
      '@media (prefers-color-scheme: dark) {',
      '  .ps-1 { a:c !important; }',
      '  .pf-0 { background-color: rgb(9,9,9) !important; }',
      '  .pt-0 { color: white; }',
      '}',
      '',
    ].join('\n'),
  );
  assert.equal(sameButColours(light, dark), true);
  assert.equal(sameButColours(light, { ...dark, html: 'other' }), false);
  assert.equal(sameButColours(light, { ...dark, fills: [] }), false);
});

test('shareClasses: one class for each colour pair of the two schemes, the markup renumbered', () => {
  const html = '<i class="pf-0"></i><i class="pf-1"></i><i class="pf-2"></i><span class="hm pt-1">pf-2</span>';
  const light = { html, fills: ['a', 'a', 'c'], inks: ['k', 'k'], styles: [] };
  const dark = { html, fills: ['b', 'b', 'b'], inks: ['w', 'w'], styles: [] };
  const [l, d] = shareClasses(light, dark);
  // Cells 0 and 1 are a in light and b in dark: one class; cell 2 is c and b: a class of its own.
  assert.equal(l.html, '<i class="pf-0"></i><i class="pf-0"></i><i class="pf-1"></i><span class="hm pt-0">pf-2</span>');
  assert.deepEqual([l.fills, d.fills, l.inks, d.inks], [['a', 'c'], ['b', 'b'], ['k'], ['w']]);
  assert.equal(d.html, l.html);
});
