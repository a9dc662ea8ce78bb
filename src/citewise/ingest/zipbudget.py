"""Reading ZIP packages (DOCX, XLSX, PPTX, EPUB, ODT) within the file's parse budget.

A few hundred KB of deflated zeros expand to gigabytes, and a member's sizes in the
central directory are the writer's word, so :func:`open_package` checks a package twice
before any parser (ours or a library's) reads it:

1. from the central directory: member count (``max_zip_members``), each member's
   declared expanded size (``max_zip_member_bytes``), their total
   (``max_zip_total_bytes``) and, for members over 1 MiB, the declared compression ratio
   (``max_zip_ratio``);
2. by decompressing every member here, chunk by chunk, counting the bytes that really
   come out (never more than one chunk is held): a member that expands past its declared
   size is stopped at that point as damaged, one past a limit as ``PARSE_LIMIT``.

After both checks every later read of the package is bounded by the limits, so the
libraries that open the package themselves (python-docx, python-pptx, openpyxl) read
within them too. The second check is needed: ``zipfile`` returns at most a member's
declared size, but inflates up to 1 GB per read before cutting (measured: a 0.5 MB ODT
whose ``content.xml`` declares 1,000 bytes added 1 GB of RSS on the base code).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator

from citewise.config import ParseLimits
from citewise.errors import BrokenFile
from citewise.ingest.limits import ParseBudget, limit_error

CHUNK = 64 * 1024
#: Members expanding to less than this are not held to the compression-ratio limit
#: (small XML parts of real packages compress 10-20x; only size makes a ratio matter).
RATIO_FLOOR = 1024 * 1024
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature ... name length, extra length
_LOCAL_SIG = b"PK\x03\x04"


def _damaged(name: str, kind: str, why: str) -> BrokenFile:
    return BrokenFile(
        f"{name}: the {kind} package is damaged ({why}).",
        hint=f"Check the file opens in its application, re-save it as {kind}, add it again.",
    )


def _limits(budget: ParseBudget | None) -> ParseLimits:
    return budget.limits if budget is not None else ParseLimits()


def check_directory(z: zipfile.ZipFile, name: str, limits: ParseLimits) -> int:
    """Step 1: the central directory's counts and declared sizes; the declared total."""
    infos = z.infolist()
    if len(infos) > limits.max_zip_members:
        raise limit_error(
            name, f"{len(infos):,} package members", "max_zip_members", limits.max_zip_members
        )
    total = 0
    for info in infos:  # sizes first: a limit on size is the plainer message
        _check_member(name, info.filename, info.file_size, limits)
        total += info.file_size
        _check_total(name, total, limits)
    for info in infos:
        if info.file_size > RATIO_FLOOR:
            ratio = info.file_size // max(info.compress_size, 1)
            if ratio > limits.max_zip_ratio:
                raise limit_error(
                    name,
                    f"package member {info.filename!r} (compressed {ratio:,}x)",
                    "max_zip_ratio",
                    limits.max_zip_ratio,
                )
    return total


def _check_member(name: str, member: str, size: int, limits: ParseLimits) -> None:
    if size > limits.max_zip_member_bytes:
        raise limit_error(
            name,
            f"package member {member!r} ({size:,} bytes expanded)",
            "max_zip_member_bytes",
            limits.max_zip_member_bytes,
        )


def _check_total(name: str, total: int, limits: ParseLimits) -> None:
    if total > limits.max_zip_total_bytes:
        raise limit_error(
            name,
            f"the package's expanded size (over {total:,} bytes)",
            "max_zip_total_bytes",
            limits.max_zip_total_bytes,
        )


def _compressed(raw: bytes, info: zipfile.ZipInfo) -> memoryview:
    """The member's compressed bytes, located from its local header."""
    start = info.header_offset
    sig, name_len, extra_len = _LOCAL_HEADER.unpack_from(raw, start)
    if sig != _LOCAL_SIG:
        raise ValueError("bad local header")
    begin = start + _LOCAL_HEADER.size + name_len + extra_len
    return memoryview(raw)[begin : begin + info.compress_size]


def _expanded_chunks(raw: bytes, z: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[int]:
    """Sizes of the member's expanded chunks, as decompressed (deflate and stored members
    are decompressed here whatever their declared size says; other methods through
    ``zipfile``, which stops at the declared size)."""
    if info.compress_type == zipfile.ZIP_STORED:
        yield len(_compressed(raw, info))
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        data = _compressed(raw, info)
        inflate = zlib.decompressobj(-15)
        for at in range(0, max(len(data), 1), CHUNK):
            out = inflate.decompress(data[at : at + CHUNK], CHUNK)
            yield len(out)
            while inflate.unconsumed_tail:  # output held back by the chunk cap
                out = inflate.decompress(inflate.unconsumed_tail, CHUNK)
                yield len(out)
        yield len(inflate.flush(CHUNK))
    else:
        with z.open(info) as member:
            while chunk := member.read(CHUNK):
                yield len(chunk)


def check_expansion(
    raw: bytes, z: zipfile.ZipFile, name: str, kind: str, limits: ParseLimits
) -> int:
    """Step 2: every member decompressed and counted; the real expanded total."""
    total = 0
    for info in z.infolist():
        if info.flag_bits & 0x1 or info.is_dir():
            continue  # encrypted members cannot be read at all; the parser says so
        size = 0
        try:
            for count in _expanded_chunks(raw, z, info):
                size += count
                total += count
                if size > info.file_size:
                    raise _damaged(
                        name,
                        kind,
                        f"member {info.filename!r} expands past its declared "
                        f"{info.file_size:,} bytes",
                    )
                _check_member(name, info.filename, size, limits)
                _check_total(name, total, limits)
        except (zlib.error, ValueError, struct.error, zipfile.BadZipFile, EOFError) as exc:
            raise _damaged(name, kind, f"member {info.filename!r}: {type(exc).__name__}") from exc
    return total


def open_package(raw: bytes, name: str, kind: str, budget: ParseBudget | None) -> zipfile.ZipFile:
    """The package, once its central directory and real expansion are within the
    file's limits (:class:`ParseLimitExceeded` naming the limit otherwise)."""
    limits = _limits(budget)
    try:
        z = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise BrokenFile(
            f"{name}: not a readable {kind} file (not a zip package).",
            hint=f"Check the file opens in its application, re-save it as {kind}, add it again.",
        ) from exc
    check_directory(z, name, limits)
    check_expansion(raw, z, name, kind, limits)
    if budget is not None:
        budget.check_time()
    return z


def declared_total(raw: bytes, name: str, limits: ParseLimits) -> int:
    """The expanded size the central directory declares, once within the limits (step 1
    only: a package refused here costs no decompression); 0 if it cannot be read (the
    parser then says why)."""
    try:
        z = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, EOFError):
        return 0
    with z:
        return check_directory(z, name, limits)


__all__ = [
    "check_directory",
    "check_expansion",
    "declared_total",
    "open_package",
]
