"""Merkle tree hashing, audit paths and consistency proofs as in RFC 6962 / RFC 9162.

Leaves are hashed as ``SHA-256(0x00 || entry)`` and interior nodes as
``SHA-256(0x01 || left || right)``; the tree over ``n`` leaves splits at the largest power
of two strictly below ``n``. The empty tree's hash is ``SHA-256("")``. Every function here is
pure: it takes leaf hashes (or entries) and returns bytes, so the same code serves the
ledger, the verifier and the tests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two strictly smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH over leaf *hashes* (not entries)."""
    n = len(leaves)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaves[0]
    k = _split(n)
    return node_hash(root(leaves[:k]), root(leaves[k:]))


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree over ``leaves`` (RFC 6962 PATH)."""
    n = len(leaves)
    if not 0 <= index < n:
        raise ValueError(f"leaf index {index} is outside a tree of size {n}")
    path: list[bytes] = []
    lo, hi, m = 0, n, index
    # Walk down from the root, collecting siblings; the path lists them bottom-up.
    while hi - lo > 1:
        k = _split(hi - lo)
        if m < k:
            path.append(root(leaves[lo + k : hi]))
            hi = lo + k
        else:
            path.append(root(leaves[lo : lo + k]))
            lo, m = lo + k, m - k
    path.reverse()
    return path


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The proof that the tree of ``old_size`` leaves is a prefix of the tree over ``leaves``
    (RFC 6962 PROOF / SUBPROOF). Empty when ``old_size`` is 0 or equals the size."""
    n = len(leaves)
    if not 0 <= old_size <= n:
        raise ValueError(f"old size {old_size} is outside 0..{n}")
    if old_size in (0, n):
        return []
    proof: list[bytes] = []
    lo, hi, m, whole = 0, n, old_size, True
    while m != hi - lo:
        k = _split(hi - lo)
        if m <= k:
            proof.append(root(leaves[lo + k : hi]))
            hi = lo + k
        else:
            proof.append(root(leaves[lo : lo + k]))
            lo, m, whole = lo + k, m - k, False
    if not whole:
        proof.append(root(leaves[lo:hi]))
    proof.reverse()
    return proof


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], expected_root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2: does ``proof`` place ``leaf`` at ``index`` under ``expected_root``?"""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 §2.1.4.2: is the ``old_size`` tree with ``old_root`` a prefix of the
    ``new_size`` tree with ``new_root``?"""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # an exact power of two: the old root is a node
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


def roots_at(leaves: Iterable[bytes], sizes: Iterable[int]) -> dict[int, bytes]:
    """Tree heads at several sizes in one pass over the leaves (a compact range of perfect
    subtrees, folded right to left at each wanted size). Sizes beyond the leaves are absent."""
    wanted = sorted(set(sizes))
    out: dict[int, bytes] = {}
    if wanted and wanted[0] == 0:
        out[0] = EMPTY_ROOT
    stack: list[tuple[int, bytes]] = []  # (height, hash), heights strictly decreasing
    want = iter(s for s in wanted if s > 0)
    nxt = next(want, None)
    for count, lh in enumerate(leaves, start=1):
        stack.append((0, lh))
        while len(stack) >= 2 and stack[-1][0] == stack[-2][0]:
            (h, right), (_, left) = stack.pop(), stack.pop()
            stack.append((h + 1, node_hash(left, right)))
        while nxt is not None and nxt == count:
            r = stack[-1][1]
            for _, h2 in reversed(stack[:-1]):
                r = node_hash(h2, r)
            out[nxt] = r
            nxt = next(want, None)
        if nxt is None:
            break
    return out
