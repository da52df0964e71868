// scripts/docs-page.mjs: Markdown to a page of the site, with nothing of the Markdown run as markup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { docsPage } from '../../scripts/docs-page.mjs';

const body = (html) => /<main class="docs">\n([^]*)<\/main>/.exec(html)[1].trim();

test('headings get GitHub ids; links to the repository\u2019s Markdown become their text and path', () => {
  const html = body(
    docsPage(
      '# Embed it\n\nSee the [README](../README.md), [the stage ids](engine-api.md#the-stage-ids) ' +
        'and [MDN](https://developer.mozilla.org/).',
      {
        title: 't',
      },
    ),
  );
  assert.equal(
    html,
    '<h1 id="embed-it">Embed it</h1>\n<p>See the README (<code>README.md</code> in the repository), the stage ids ' +
      '(<code>docs/engine-api.md</code> in the repository) and <a href="https://developer.mozilla.org/">MDN</a>.</p>',
  );
});

test('raw HTML is shown as text, in a block or inline; code keeps its markup as text', () => {
  const html = body(
    docsPage('<script>alert(1)</script>\n\nan <iframe src="x"> inline\n\n```html\n<b>x</b>\n```', { title: '<t>' }),
  );
  assert.ok(!/<(script|iframe|b)\b/.test(html), html);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /an &lt;iframe src=&quot;x&quot;&gt; inline/);
  assert.match(html, /<pre><code class="language-html">&lt;b&gt;x&lt;\/b&gt;\n<\/code><\/pre>/);
  assert.match(docsPage('', { title: '<t>' }), /<title>&lt;t&gt;<\/title>/);
});
