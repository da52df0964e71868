// scripts/package-scorm.mjs on the built dist/: every chapter's package and the whole stepper's,
// their imsmanifest.xml held to the SCORM 1.2 content-packaging rules a test can check without
// the schemas (identifiers, references, the launch file, every file listed and present, the
// schema version, the mastery score), the launch page set to its chapter, and bad options refused
// by name. The package under a SCORM runtime: tests/browser/scorm.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { LAUNCH, packagesOf } from '../../scripts/package-scorm.mjs';

const NCNAME = /^[A-Za-z_][A-Za-z0-9._-]*$/; // xs:ID: what an identifier must be
const attr = (tag, name) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const tags = (xml, name) => xml.match(new RegExp(`<${name}\\b[^>]*>`, 'g')) ?? [];
const textOf = (xml, name) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

const packages = packagesOf({ mastery: 80 });

test('a package for every chapter and one for the whole stepper', () => {
  assert.deepEqual(
    packages.map((p) => p.name),
    [...CHAPTERS.map((c) => `attention-stepper-${c.id}.zip`), 'attention-stepper-all.zip'],
  );
});

for (const p of packages) {
  test(`${p.name}: imsmanifest.xml follows SCORM 1.2 and lists exactly the package's files`, () => {
    const xml = p.files['imsmanifest.xml'].toString('utf8');
    assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<manifest /);
    assert.equal(textOf(xml, 'schema'), 'ADL SCORM');
    assert.equal(textOf(xml, 'schemaversion'), '1.2');
    const ids = [...xml.matchAll(/\sidentifier="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, ids.length, 'identifiers are unique');
    for (const id of ids) assert.match(id, NCNAME);
    const [organizations] = tags(xml, 'organizations');
    const organizationIds = tags(xml, 'organization').map((t) => attr(t, 'identifier'));
    assert.ok(organizationIds.includes(attr(organizations, 'default')), 'the default organization exists');
    const [item] = tags(xml, 'item');
    const [resource] = tags(xml, 'resource');
    assert.equal(attr(item, 'identifierref'), attr(resource, 'identifier'), 'the item launches the resource');
    assert.equal(attr(resource, 'adlcp:scormtype'), 'sco');
    assert.equal(attr(resource, 'type'), 'webcontent');
    assert.equal(attr(resource, 'href'), LAUNCH);
    assert.equal(textOf(xml, 'adlcp:masteryscore'), '80');
    assert.match(xml, /xmlns:adlcp="http:\/\/www\.adlnet\.org\/xsd\/adlcp_rootv1p2"/);
    const listed = tags(xml, 'file').map((t) => attr(t, 'href'));
    const shipped = Object.keys(p.files).filter((f) => f !== 'imsmanifest.xml');
    assert.deepEqual([...listed].sort(), [...shipped].sort(), 'every file listed, and only those');
    for (const f of listed) assert.ok(!f.startsWith('/') && !f.includes('..'), `${f}: inside the package`);
    for (const needed of [LAUNCH, 'attention-stepper-scorm.classic.js', 'attention-wasm.classic.js'])
      assert.ok(listed.includes(needed), needed);
    for (const page of ['training.html', 'builder.html', 'embedding.html'])
      assert.ok(!listed.includes(page), `no other page: ${page}`);
    assert.ok(!listed.some((f) => f.startsWith('scorm/')), 'no package in a package');
    const launch = p.files[LAUNCH].toString('utf8');
    const chapter = p.chapter === 'all' ? '' : p.chapter;
    assert.match(
      launch,
      new RegExp(`<main id="scorm" data-chapter="${chapter}" data-mastery="80" data-controls="full">`),
    );
  });
}

test('--controls locked: the launch page fixes the configuration', () => {
  const [locked] = packagesOf({ chapters: ['masks'], controls: 'locked' });
  assert.match(locked.files[LAUNCH].toString('utf8'), /data-chapter="masks" data-mastery="70" data-controls="locked"/);
});

test('bad options are refused by name', () => {
  assert.throws(() => packagesOf({ controls: 'none' }), /^Error: --controls: none is not one of full, locked$/);
  assert.throws(() => packagesOf({ chapters: ['attention', 'nope'] }), /^Error: chapter: nope is not a chapter; the/);
  for (const mastery of [-1, 101, NaN])
    assert.throws(() => packagesOf({ mastery }), /^Error: --mastery: .* is not a score from 0 to 100$/);
});
