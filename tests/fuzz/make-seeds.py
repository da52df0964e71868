#!/usr/bin/env python3
"""Writes the hand-made seeds of tests/fuzz/corpus (seed-*): one small valid spec of every kind
and switch, each preset, hostile values in every kind's fields, and specs as JS gives them with
the fields added since (js-*), in the byte layout that byte_reader.hpp, fuzz_inputs.cpp and
fuzz_values.cpp read. Inputs the fuzzer found itself (the other files)
are kept beside them. Run: /usr/bin/python3 tests/fuzz/make-seeds.py"""
import math
import pathlib
import re
import struct

HERE = pathlib.Path(__file__).parent
NAN, INF = float('nan'), float('inf')


def hostile_table():
    text = (HERE / 'byte_reader.hpp').read_text()
    body = re.search(r'hostile\[\] = \{(.*?)\};', text, re.S).group(1)
    body = re.sub(r'/\*.*?\*/|//[^\n]*', '', body)
    names = {'std::numeric_limits<double>::quiet_NaN()': NAN,
             'std::numeric_limits<double>::infinity()': INF,
             '-std::numeric_limits<double>::infinity()': -INF}
    return [names[s] if s in names else float(s) for s in (p.strip() for p in body.split(','))]


HOSTILE = hostile_table()
SMALL_TAGS = 256 - len(HOSTILE)
RAW = SMALL_TAGS + len(HOSTILE) - 1


def num(v):
    """A number as byte_reader::number() reads it."""
    if isinstance(v, int) and 0 <= v <= 8:
        return bytes([v])
    for i, h in enumerate(HOSTILE[:-1]):
        if (math.isnan(v) and math.isnan(h)) or (h == v and math.copysign(1, h) == math.copysign(1, v)):
            return bytes([SMALL_TAGS + i])
    return bytes([RAW]) + struct.pack('>d', v)


def maybe(v):
    return b'\0' if v is None else b'\1' + num(v)


def word(w):
    data = w.encode() if isinstance(w, str) else w
    return bytes([len(data)]) + data


def tail(cells=((0, 0, 0, 0),), kv=(8, 4, 2, 3, 2, 1)):
    """explain_cell's picks (stage, twist, row, col), then the KV-cache size query."""
    out = bytes([len(cells) - 1])
    for cell in cells:
        out += bytes(cell)
    return out + b''.join(num(v) for v in kv)


KINDS = {'self': 0, 'cross': 1, 'encoder': 2, 'kv': 3, 'flash': 4, 'designed': 5}


def generated(kind, seed=42, skip=0, t=4, t_kv=3, d=8, h=2, h_kv=None, dk=None, dv=None,
              dff=None, valid=None, br=2, bc=3, causal=False, w_o=True, scale=True, ws=None,
              pruned=(), tokens=(), cells=((0, 0, 0, 0), (7, 0, 1, 1)), kv=(8, 4, 2, 3, 2, 1)):
    flags = causal | (not w_o) << 1 | (not scale) << 2 | (ws is not None) << 3
    out = bytes([KINDS[kind]]) + b''.join(num(v) for v in (seed, skip, t, t_kv, d, h))
    out += b''.join(maybe(v) for v in (h_kv, dk, dv, dff, valid)) + num(br) + num(bc)
    out += bytes([flags]) + (num(ws) if ws is not None else b'')
    out += bytes([len(pruned)]) + b''.join(num(v) for v in pruned)
    if kind == 'designed':
        out += bytes([len(tokens)]) + b''.join(word(w) for w in tokens)
    return out + tail(cells, kv)


def matrix(r, c, values=None, shape=0):
    values = values or [((i * 7 + 3) % 17 - 8) / 4 for i in range(r * c)]
    return bytes([shape]) + b''.join(bytes([int(100 + 16 * v)]) if -6.25 <= v < 7.9 and
                                     (16 * v).is_integer() else bytes([224]) + num(v)
                                     for v in values)


def explicit(cross=False, t=3, t_kv=4, d=4, h=2, h_kv=1, dk=2, dv=3, causal=False, scale=True,
             w_o=True, valid=None, pruned=(), x=None, x_shape=0, cells=((2, 0, 1, 1),)):
    flags = causal | (not scale) << 1 | w_o << 2 | (valid is not None) << 3
    out = bytes([7 if cross else 6, t, t_kv, d, h, h_kv, dk, dv, flags])
    out += matrix(t, d, x, x_shape) + (matrix(t_kv, d) if cross else b'')
    out += b''.join(matrix(d, dk) for _ in range(h)) + b''.join(matrix(d, dk) for _ in range(h_kv))
    out += b''.join(matrix(d, dv) for _ in range(h_kv)) + (matrix(h * dv, d) if w_o else b'')
    out += (num(valid) if valid is not None else b'') + bytes([len(pruned)])
    return out + b''.join(num(v) for v in pruned) + tail(cells)


def preset(index, which=12, payload=b'', cells=((3, 0, 1, 0),)):
    return bytes([8, index]) + bytes([which]) + payload + tail(cells)


def string_table(name):
    """A const char *const table of fuzz_values.cpp, in its order."""
    text = (HERE / 'fuzz_values.cpp').read_text()
    body = re.search(name + r'\[\] = \{(.*?)\};', text, re.S).group(1)
    return re.findall(r'"([^"]*)"', body)


FIELDS, JS_KINDS, KNOWN_WORDS = (string_table(n) for n in ('field_names', 'kinds', 'known_words'))


def js_value(v):
    """A value as fuzz_values.cpp's any_value reads it: its type byte, then the value."""
    if isinstance(v, bool):
        return bytes([0, int(v)])
    if v is None:
        return bytes([2])
    if isinstance(v, str):
        known = KNOWN_WORDS.index(v) if v in KNOWN_WORDS else None
        return bytes([1, known]) if known is not None else bytes([1, 255]) + word(v)
    if isinstance(v, dict):  # RoPE's record: each of its four fields present or not
        return bytes([6]) + b''.join(b'\1' + js_value(v[k]) if k in v else b'\0'
                                     for k in ('base', 'convention', 'dims', 'offset'))
    if isinstance(v, list) and v and isinstance(v[0], list):  # a matrix of entries
        return bytes([4, len(v), len(v[0])]) + matrix(len(v), len(v[0]), sum(v, []))[1:]
    if isinstance(v, list):
        return bytes([3, len(v)]) + b''.join(num(x) for x in v)
    return bytes([8]) + num(v)


def js_spec(kind, fields, cells=((0, 0, 0, 0),)):
    """A spec as JS gives it (mode byte 10): its kind, then each field by its index and value."""
    out = bytes([10, JS_KINDS.index(kind), len(fields)])
    for name, v in fields.items():
        out += bytes([FIELDS.index(name)]) + js_value(v)
    return out + tail(cells)


SEEDS = {
    'self': generated('self'),
    'self-causal-gqa': generated('self', h=4, h_kv=2, causal=True, t=5),
    'self-mqa-no-wo': generated('self', h=4, h_kv=1, w_o=False, dk=3, dv=2),
    'self-unscaled-ws1': generated('self', scale=False, ws=1, pruned=(1,)),
    'cross-valid': generated('cross', valid=2, pruned=(0,)),
    'encoder': generated('encoder', dff=16, causal=True, cells=((20, 0, 1, 2), (30, 0, 0, 0))),
    'kv-cache': generated('kv', h=4, h_kv=2, cells=((12, 0, 0, 1), (40, 0, 0, 0))),
    'flash-causal': generated('flash', h=1, t=5, causal=True, br=2, bc=3, w_o=False,
                              cells=((9, 0, 1, 1), (13, 0, 0, 0), (17, 0, 1, 2))),
    'designed': generated('designed', tokens=('the', 'cat', 'sat', 'on', 'The', 'mat'),
                          pruned=(2,), causal=True),
    'nan-seqlen': generated('self', t=NAN),
    'inf-dmodel': generated('cross', d=INF),
    'negative-heads': generated('encoder', h=-1),
    'fractional-dk': generated('kv', dk=2.5),
    'huge-skip': generated('self', skip=1e300),
    'weight-scale-zero': generated('flash', ws=0.0),
    'weight-scale-nan': generated('self', ws=NAN),
    'pruned-twice': generated('self', pruned=(1, 1)),
    'seed-2^32': generated('self', seed=4294967296.0),
    'designed-empty': generated('designed', tokens=()),
    'designed-long-token': generated('designed', tokens=('x' * 161, 'ok')),
    'designed-control-bidi': generated('designed', tokens=('\x00\x07', '\u202eevil', '<b>', 'A', 'a')),
    'explicit-self': explicit(),
    'explicit-cross-padding': explicit(cross=True, valid=3, pruned=(1,)),
    'explicit-causal-unscaled': explicit(causal=True, scale=False, w_o=False),
    'explicit-ragged': explicit(x_shape=31),
    'explicit-empty': explicit(t=0),
    'explicit-nan-entry': explicit(x=[NAN] + [0.5] * 11),
    'explicit-too-large': explicit(x=[1e6 + 1] + [0.0] * 11),
    'kv-bytes-over-2^53': generated('self', kv=(4294967295.0, 4294967295.0, 8, 8, 8, 8)),
    'kv-bytes-fractional': generated('self', kv=(8, 0.5, 2, 3, 2, 1)),
}
# The fields added since the modes above were written, each in a spec as JS gives it.
SEEDS.update({
    'js-window-causal': js_spec('self', {'seqLen': 6, 'dModel': 8, 'numHeads': 2, 'window': 3,
                                         'causal': True}),
    'js-prefix-documents': js_spec('self', {'seqLen': 6, 'dModel': 8, 'prefix': 2,
                                            'documents': [3, 3]}),
    'js-rope-half-split': js_spec('self', {'seqLen': 5, 'dModel': 8, 'numHeads': 2, 'causal': True,
                                           'rope': {'convention': 'half-split', 'offset': 3}}),
    'js-rope-nan-base': js_spec('backward', {'seqLen': 4, 'dModel': 8, 'rope': {'base': NAN}}),
    'js-softcap-kv-cache-window': js_spec('kv-cache', {'seqLen': 6, 'dModel': 8, 'numHeads': 2,
                                                       'softcap': 0.5, 'window': 3}),
    'js-softcap-nan': js_spec('self', {'seqLen': 4, 'dModel': 8, 'softcap': NAN}),
    'js-sinks-drawn-cross': js_spec('cross', {'queryLen': 3, 'keyLen': 5, 'dModel': 8, 'numHeads': 2,
                                              'sinks': True}),
    'js-sinks-short': js_spec('self', {'seqLen': 4, 'dModel': 8, 'numHeads': 2, 'sinks': [1.0]}),
    'js-qk-norm-kv-cache-rope': js_spec('kv-cache', {'seqLen': 5, 'dModel': 8, 'numHeads': 2,
                                                     'qkNorm': True, 'rope': {}, 'window': 3}),
    'js-sink-tokens-kv-cache-ring': js_spec('kv-cache', {'seqLen': 9, 'dModel': 8, 'numHeads': 2,
                                                         'window': 4, 'sinkTokens': 2, 'alibi': True}),
    'js-sink-tokens-whole-window': js_spec('self', {'seqLen': 6, 'dModel': 8, 'window': 3,
                                                    'sinkTokens': 3}),
    'js-qk-norm-gain-nan': js_spec('self', {'seqLen': 4, 'dModel': 8, 'numHeads': 2, 'qkNorm': True,
                                            'kNormGain': [1.0, NAN, 1.0, 1.0]}),
    'js-mla-rope-causal': js_spec('mla', {'seqLen': 5, 'dModel': 8, 'numHeads': 2, 'dLatent': 4,
                                          'dRope': 2, 'causal': True, 'rope': {'base': 100}}),
    'js-mla-odd-rope': js_spec('mla', {'seqLen': 4, 'dModel': 8, 'dLatent': 4, 'dRope': 3}),
    'js-mla-no-latent': js_spec('mla', {'seqLen': 4, 'dModel': 8, 'dRope': 2, 'window': 2}),
    'js-alibi-padding': js_spec('self', {'seqLen': 6, 'dModel': 8, 'numHeads': 2, 'alibi': True,
                                         'validKeys': 5, 'causal': True}),
    'js-window-1-valid-keys-1': js_spec('self', {'seqLen': 5, 'dModel': 4, 'window': 1,
                                                 'validKeys': 1}),
    'js-sinusoidal-kv-cache': js_spec('kv-cache', {'seqLen': 5, 'dModel': 8, 'numHeads': 2,
                                                   'positionalEncoding': 'sinusoidal', 'window': 2}),
    'js-backward-d-output': js_spec('backward', {'seqLen': 2, 'dModel': 2, 'numHeads': 1,
                                                 'dOutput': [[0.5, -1.0], [2.0, 0.25]]}),
    'js-model-trained': js_spec('model', {'checkpoint': 'trained', 'tokens': [1, 2, 3, 1, 2]}),
    'js-flash-window': js_spec('flash', {'seqLen': 6, 'dModel': 8, 'blockRows': 2, 'blockCols': 3,
                                         'window': 2}),
    'js-bogus-field': js_spec('cross', {'queryLen': 2, 'keyLen': 3, 'dModel': 4, 'bogus': True}),
})
SEEDS.update({f'preset-{i:02}': preset(i) for i in range(15)})
SEEDS['preset-unknown'] = bytes([8, 15]) + word('no-such-preset') + bytes([12]) + tail()
SEEDS['preset-seqlen-1025'] = preset(0, 2, num(1025.0))

if __name__ == '__main__':
    corpus = HERE / 'corpus'
    corpus.mkdir(exist_ok=True)
    for old in corpus.glob('seed-*'):
        old.unlink()
    for name, data in SEEDS.items():
        (corpus / f'seed-{name}').write_bytes(data)
    print(f'wrote {len(SEEDS)} seeds to {corpus}')
