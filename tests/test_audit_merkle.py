"""Merkle proofs: the RFC 6962 §2.1.3 seven-leaf examples, and generated trees."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.core import merkle as mk

D = [f"entry {i}".encode() for i in range(7)]
a, b, c, d, e, f, j = (mk.leaf_hash(x) for x in D)
g = mk.node_hash(a, b)
h = mk.node_hash(c, d)
i = mk.node_hash(e, f)
k = mk.node_hash(g, h)
l = mk.node_hash(i, j)  # noqa: E741 - the RFC's name
ROOT7 = mk.node_hash(k, l)
LEAVES = [a, b, c, d, e, f, j]


def test_rfc_tree_shape_and_roots() -> None:
    assert mk.root(LEAVES) == ROOT7
    assert mk.root(LEAVES[:3]) == mk.node_hash(g, c)
    assert mk.root(LEAVES[:4]) == k
    assert mk.root(LEAVES[:6]) == mk.node_hash(k, i)
    assert mk.root([]) == mk.EMPTY_ROOT
    assert mk.roots_at(LEAVES, [0, 3, 4, 6, 7]) == {
        0: mk.EMPTY_ROOT,
        3: mk.node_hash(g, c),
        4: k,
        6: mk.node_hash(k, i),
        7: ROOT7,
    }


def test_rfc_inclusion_examples() -> None:
    assert mk.inclusion_proof(0, LEAVES) == [b, h, l]  # a
    assert mk.inclusion_proof(3, LEAVES) == [c, g, l]  # d
    assert mk.inclusion_proof(6, LEAVES) == [i, k]  # j
    for idx, proof in ((0, [b, h, l]), (3, [c, g, l]), (6, [i, k])):
        assert mk.verify_inclusion(idx, 7, LEAVES[idx], proof, ROOT7)
        assert not mk.verify_inclusion(idx, 7, LEAVES[idx], proof[::-1], ROOT7)


def test_rfc_consistency_examples() -> None:
    assert mk.consistency_proof(3, LEAVES) == [c, d, g, l]
    assert mk.consistency_proof(4, LEAVES) == [l]
    assert mk.consistency_proof(6, LEAVES) == [i, j, k]
    for m, proof in ((3, [c, d, g, l]), (4, [l]), (6, [i, j, k])):
        assert mk.verify_consistency(m, 7, mk.root(LEAVES[:m]), ROOT7, proof)
        assert not mk.verify_consistency(m, 7, mk.root(LEAVES[:m]), ROOT7, proof[:-1])


def _flip(proof: list[bytes], which: int, byte: int) -> list[bytes]:
    out = list(proof)
    p = bytearray(out[which % len(out)])
    p[byte % 32] ^= 0x01
    out[which % len(out)] = bytes(p)
    return out


def _flip1(x: bytes, byte: int) -> bytes:
    p = bytearray(x)
    p[byte % 32] ^= 0x80
    return bytes(p)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 200),
    data=st.data(),
)
def test_proofs_verify_and_fail_after_any_byte_change(n: int, data: st.DataObject) -> None:
    leaves = [mk.leaf_hash(i.to_bytes(4, "big")) for i in range(n)]
    top = mk.root(leaves)
    idx = data.draw(st.integers(0, n - 1))
    m = data.draw(st.integers(0, n))
    which = data.draw(st.integers(0, 10_000))
    byte = data.draw(st.integers(0, 31))
    path = mk.inclusion_proof(idx, leaves)
    assert mk.verify_inclusion(idx, n, leaves[idx], path, top)
    assert not mk.verify_inclusion(idx, n, _flip1(leaves[idx], byte), path, top)
    assert not mk.verify_inclusion(idx, n, leaves[idx], path, _flip1(top, byte))
    if path:
        assert not mk.verify_inclusion(idx, n, leaves[idx], _flip(path, which, byte), top)
    if n > 1:
        other = (idx + 1 + which % (n - 1)) % n
        assert (
            not mk.verify_inclusion(other, n, leaves[idx], path, top)
            or leaves[other] == (leaves[idx])
        )
    old = mk.root(leaves[:m])
    proof = mk.consistency_proof(m, leaves)
    assert mk.verify_consistency(m, n, old, top, proof)
    if 0 < m < n:
        assert not mk.verify_consistency(m, n, old, top, _flip(proof, which, byte))
        assert not mk.verify_consistency(m, n, _flip1(old, byte), top, proof)
        assert not mk.verify_consistency(m, n, old, _flip1(top, byte), proof)
    assert mk.roots_at(leaves, [m, n]) == {m: old, n: top}


def test_all_small_sizes_exhaustively() -> None:
    leaves = [mk.leaf_hash(bytes([i])) for i in range(40)]
    for n in range(1, 41):
        top = mk.root(leaves[:n])
        for idx in range(n):
            path = mk.inclusion_proof(idx, leaves[:n])
            assert mk.verify_inclusion(idx, n, leaves[idx], path, top)
        for m in range(n + 1):
            proof = mk.consistency_proof(m, leaves[:n])
            assert mk.verify_consistency(m, n, mk.root(leaves[:m]), top, proof)
