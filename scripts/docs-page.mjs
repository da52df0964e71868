// docs/embedding.md as a page of the site (dist/embedding.html), so that a lecturer who has only
// the site finds how to embed it: rendered by marked at build time, with the site's styles and no
// script. Links to the repository's other Markdown files, which the site does not serve, become
// their text and the file's path; raw HTML in the Markdown is shown as text, never parsed.
//   docsPage(markdown, { title }) → the page's HTML.
import { Marked } from 'marked';

const escape = (text) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// A heading's id, as GitHub makes it: lower case, spaces to hyphens, punctuation dropped.
const slug = (text) =>
  text
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

const marked = new Marked({
  renderer: {
    heading({ tokens, depth }) {
      const inner = this.parser.parseInline(tokens);
      return `<h${depth} id="${slug(inner)}">${inner}</h${depth}>\n`;
    },
    link({ href, tokens }) {
      const text = this.parser.parseInline(tokens);
      const file = /^(?:\.\.\/|\.\/)?([\w/-]+\.md)(#.*)?$/.exec(href);
      if (!file) return `<a href="${escape(href)}">${text}</a>`;
      const where = href.startsWith('../') ? file[1] : `docs/${file[1]}`;
      return `${text} (<code>${escape(where)}</code> in the repository)`;
    },
    html({ text }) {
      return escape(text);
    },
  },
});

export function docsPage(markdown, { title }) {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>${escape(title)}</title>
  <link rel="icon" href="favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="styles/docs-page.css">
</head>
<body>
  <nav class="docs-nav" aria-label="Site">
    <a href="index.html">Attention stepper</a> · <a href="training.html">Heads that learn</a>
  </nav>
  <main class="docs">
${marked.parse(markdown)}  </main>
</body>
</html>
`;
}
