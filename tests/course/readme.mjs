// The embedding recipes, read from docs/embedding.md, so the course tests check what the
// docs say rather than a copy of them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './course-harness.mjs';

const GUIDE = 'docs/embedding.md';

// The first ```lang block after the first occurrence of marker in docs/embedding.md.
export function readmeBlock(marker, lang) {
  const text = readFileSync(path.join(ROOT, GUIDE), 'utf8');
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${GUIDE} has no "${marker}"`);
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text.slice(at));
  if (!block) throw new Error(`${GUIDE} has no \`\`\`${lang} block after "${marker}"`);
  return block[1];
}

// Its non-empty lines, trimmed.
export function readmeLines(marker, lang) {
  return readmeBlock(marker, lang)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}
