// The training page's tasks as it words them: a title for the picker, what the task asks of a
// head, and the runs it trains (two-relations trains two heads, then one of twice the width, on
// the same batches). The engine holds the tasks themselves (cpp/include/attention/tasks.hpp).

export const TASKS = {
  induction: {
    title: 'Induction: copy a repeated block',
    about:
      'Each sequence holds a random block of 4\u20138 tokens twice, at a random place. ' +
      'The loss counts the copy\u2019s ' +
      'tokens after its first: to predict them a head must find where the current token occurred before and read ' +
      'the token that followed it \u2014 an induction head, which needs a previous-token head in the layer below.',
    runs: [{ label: '2 heads', spec: {} }],
  },
  'previous-token': {
    title: 'Previous token: one position back',
    about:
      'Triples (a, b, a) of random tokens. At b the next token is the one before b: one layer with one head must ' +
      'learn to attend one position back.',
    runs: [{ label: '1 head', spec: {} }],
  },
  'two-relations': {
    title: 'Two relations: one head or two',
    about:
      'A first symbol s\u2080, then triples (s, r, \u27e8s\u2080, s\u27e9): at r the answer is the pair of the first ' +
      'symbol and the one before r, so it needs key 0 and key t \u2212 1 at once. One head of width 32 and two heads ' +
      'of width 16 (the same number of weights) train on the same batches; the charts show both.',
    runs: [
      { label: '2 heads', spec: { numHeads: 2 } },
      { label: '1 head', spec: { numHeads: 1 } },
    ],
  },
};
