"""The BLAS kernel pin of training (ce_filter/learn/blas.py)."""

import subprocess
import sys

import pytest

from ce_filter.learn import blas


def test_pin_added_only_where_it_runs_and_not_chosen(monkeypatch):
    monkeypatch.setattr(blas, "can_pin", lambda: True)
    assert blas.pinned_env({"PATH": "/bin"}) == {"PATH": "/bin", blas.VAR: blas.KERNEL}
    assert blas.pinned_env({blas.VAR: "SkylakeX"})[blas.VAR] == "SkylakeX"  # the user's choice stays
    monkeypatch.setattr(blas, "can_pin", lambda: False)
    assert blas.VAR not in blas.pinned_env({"PATH": "/bin"})


def test_kernels_name_the_loaded_blas_and_the_pin_takes_effect():
    pytest.importorskip("threadpoolctl")
    if not blas.can_pin():
        pytest.skip("this CPU cannot run the pinned kernel (x86-64 with AVX2 and FMA)")
    code = "import numpy, scipy.linalg; from ce_filter.learn.blas import kernels; print(kernels())"
    out = subprocess.run([sys.executable, "-c", code], env=blas.pinned_env(), check=True,
                         capture_output=True, text=True).stdout.strip()
    assert out and all(k.endswith(" " + blas.KERNEL) for k in out.split("; ")), out


def test_shell_line(monkeypatch, capsys):
    monkeypatch.delenv(blas.VAR, raising=False)
    monkeypatch.setattr(blas, "can_pin", lambda: True)
    blas.main()
    assert capsys.readouterr().out == f"export {blas.VAR}={blas.KERNEL}\n"
    monkeypatch.setenv(blas.VAR, "Zen")
    blas.main()
    assert capsys.readouterr().out == ""


def test_training_log_notes_an_unpinned_kernel(monkeypatch):
    pytest.importorskip("threadpoolctl")
    monkeypatch.setattr(blas, "can_pin", lambda: True)
    monkeypatch.delenv(blas.VAR, raising=False)
    note = blas.unpinned_note()
    assert f"{blas.VAR}={blas.KERNEL}" in note and "scripts/train_models.sh" in note
    monkeypatch.setenv(blas.VAR, blas.KERNEL)
    assert blas.unpinned_note() == ""
    monkeypatch.delenv(blas.VAR)
    monkeypatch.setattr(blas, "can_pin", lambda: False)
    assert blas.unpinned_note() == ""
