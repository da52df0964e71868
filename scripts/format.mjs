// The JS formatter: Prettier (pinned in package.json, options in .prettierrc.json) over every
// tracked JS file, and no line longer than 120 characters (Prettier leaves long strings and
// comments as they are).
//   node scripts/format.mjs           rewrite the files Prettier would change
//   node scripts/format.mjs --check   change nothing; list what differs and fail (npm test)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as prettier from 'prettier';

const MAX_LINE = 120;
const check = process.argv.includes('--check');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.js', '*.mjs'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.startsWith('tests/fixtures/'));

const problems = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  const formatted = await prettier.format(text, options);
  if (formatted !== text) {
    if (check) problems.push(`${file}: not formatted (node scripts/format.mjs rewrites it)`);
    else writeFileSync(file, formatted);
  }
  formatted.split('\n').forEach((line, i) => {
    if (line.length > MAX_LINE) problems.push(`${file}:${i + 1}: ${line.length} characters (at most ${MAX_LINE})`);
  });
}
for (const problem of problems) console.error(problem);
console.log(`format: ${files.length} files, ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
process.exitCode = problems.length ? 1 : 0;
