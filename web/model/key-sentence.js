// A paragraph's key sentence: the page shows it first and keeps the rest one click away.

/** [first sentence, the rest ('' when there is none)]: a sentence ends at . ! or ? before a
 *  capital or an opening parenthesis, so "0.1", "e.g. the" and "et al. 2018" do not end one. */
export function keySentence(text) {
  const end = /[.!?](?=\s+[A-Z(])/.exec(text);
  return end ? [text.slice(0, end.index + 1), text.slice(end.index + 1).trim()] : [text, ''];
}
