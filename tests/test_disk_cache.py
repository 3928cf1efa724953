"""The disk cache of derived closed forms (issue 31, item 6): a second ``coefficients`` run of
the same expression makes no ``sympy.integrate`` attempt and prints the same digits;
``srfsym cache --clear`` empties it; ``SRFSYM_CACHE=off`` bypasses it."""
import os

from cli_run import run_cli
from srfsym.core.diskcache import cached_on_disk, clear_cache

ARGS = ["coefficients", "tanh(x) + 0.1*x**3", "--r", "0.9", "--c", "1", "--kappa", "0.7"]


def test_second_run_reads_the_cache(tmp_path):
    env = {"SRFSYM_CACHE": "on", "SRFSYM_CACHE_DIR": str(tmp_path)}
    first = run_cli(*ARGS, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("trying sympy.integrate") == 4     # no rule: 2 s attempts
    entries = list(tmp_path.rglob("*.pickle"))
    assert entries
    second = run_cli(*ARGS, env=env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert "trying sympy.integrate" not in second.stderr
    cleared = run_cli("cache", "--clear", env=env)
    assert cleared.returncode == 0 and f"removed {len(entries)} cached entries" in cleared.stdout
    assert not list(tmp_path.rglob("*.pickle"))


def test_off_and_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("SRFSYM_CACHE_DIR", str(tmp_path))
    calls = []
    monkeypatch.setenv("SRFSYM_CACHE", "off")
    for _ in range(2):
        cached_on_disk("t", ("a",), lambda: calls.append(1) or 1)
    assert len(calls) == 2 and not list(tmp_path.rglob("*.pickle"))
    monkeypatch.setenv("SRFSYM_CACHE", "on")
    assert cached_on_disk("t", ("a",), lambda: 1) == 1
    assert cached_on_disk("t", ("b",), lambda: 2) == 2          # another key: computed
    assert cached_on_disk("t", ("a",), lambda: 3) == 1          # stored
    assert clear_cache() == 2 and os.path.isdir(tmp_path)
