"""The throwaway-cluster helper (tests/pg.py) reaches server binaries the ``postgres`` user
cannot: an install under a 0700 folder is copied, with its wheel's vendored libraries, to a
0755 folder it can run from; and in CI an installed server that cannot start fails."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests import pg


def _install(root: Path) -> Path:
    """A wheel-shaped install: site/pkg/pginstall/{bin,lib,share} and site/pkg_dist.libs."""
    install = root / "site" / "pkg" / "pginstall"
    for part, name in (("bin", "initdb"), ("lib", "vector.so"), ("share", "postgres.bki")):
        (install / part).mkdir(parents=True)
        (install / part / name).write_text(part, encoding="utf-8")
    (install / "include").mkdir()
    (root / "site" / "pkg_dist.libs").mkdir()
    (root / "site" / "pkg_dist.libs" / "libpq.so").write_text("lib", encoding="utf-8")
    (root / "site" / "other.libs").mkdir()
    return install


def test_a_path_under_a_private_folder_is_out_of_reach(tmp_path: Path) -> None:
    private = tmp_path / "private"
    (private / "bin").mkdir(parents=True)
    (private / "bin" / "initdb").write_text("", encoding="utf-8")
    os.chmod(private / "bin" / "initdb", 0o755)
    os.chmod(tmp_path, 0o755)
    os.chmod(private, 0o700)
    stranger = os.getuid() + 12345
    assert not pg._others_reach(private / "bin" / "initdb", stranger)
    os.chmod(private, 0o755)
    assert pg._others_reach(private / "bin" / "initdb", stranger) == all(
        p.stat().st_mode & 0o001 for p in private.parents
    )


def test_the_staged_copy_keeps_the_layout_the_binaries_find_their_libraries_by(
    tmp_path: Path,
) -> None:
    install = _install(tmp_path)
    copy = pg._staged_copy(install)
    try:
        assert copy.parts[-2:] == ("pkg", "pginstall")
        assert str(copy).startswith("/tmp/citewise-pgbin-")
        assert sorted(p.name for p in copy.iterdir()) == ["bin", "lib", "share"]
        root = copy.parent.parent
        assert (root / "pkg_dist.libs" / "libpq.so").read_text(encoding="utf-8") == "lib"
        assert not (root / "other.libs").exists()
        for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            assert folder.stat().st_mode & 0o777 == 0o755, folder
        assert pg._staged_copy(install) == copy  # reused, not copied again
    finally:
        shutil.rmtree(copy.parent.parent, ignore_errors=True)


def test_in_ci_an_installed_server_that_cannot_start_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(base: Path, bin_dir: Path) -> None:
        raise RuntimeError("initdb failed: planted")

    (tmp_path / "initdb").write_text("", encoding="utf-8")
    monkeypatch.setattr(pg, "_start", broken)
    monkeypatch.setattr(pg, "reachable_bin", lambda bin_dir: bin_dir)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="installed but could not start in CI"):
        next(pg._cluster(tmp_path, "PostgreSQL"))
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception, match="planted"):
        next(pg._cluster(tmp_path, "PostgreSQL"))
    (tmp_path / "initdb").unlink()  # not installed: a skip even in CI
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.skip.Exception, match="planted"):
        next(pg._cluster(tmp_path, "PostgreSQL"))
