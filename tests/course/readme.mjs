// The README's embedding recipes, read from README.md, so the course tests check what the
// README says rather than a copy of it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './course-harness.mjs';

// The first ```lang block after the first occurrence of marker in README.md.
export function readmeBlock(marker, lang) {
  const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}"`);
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text.slice(at));
  if (!block) throw new Error(`README.md has no \`\`\`${lang} block after "${marker}"`);
  return block[1];
}

// Its non-empty lines, trimmed.
export function readmeLines(marker, lang) {
  return readmeBlock(marker, lang)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}
