"""The suite runs on every core: pytest-xdist is in the test extras and on by default, and the long tests start
first so that they run side by side. Run from another working directory, the collection is the same."""
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_xdist_is_configured_and_installed_with_the_test_extras():
    text = (REPO / "pyproject.toml").read_text()
    assert 'addopts = "-ra -n auto"' in text
    test_extra = text.split("test = [", 1)[1].split("]", 1)[0]
    assert "pytest-xdist" in test_extra
    import xdist  # noqa: F401  (installed with the test extras)


def test_slow_tests_are_collected_first_from_any_working_directory(tmp_path):
    files = [str(REPO / "tests" / "api" / "test_errors_pickle.py"),
             str(REPO / "tests" / "tiling" / "test_sweep_qlinear_matmul.py")]
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider",
                        "--rootdir", str(REPO), *files], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    ids = [line for line in r.stdout.splitlines() if "::" in line]
    slow = [i for i, line in enumerate(ids) if "10000_random_shapes" in line]
    assert len(slow) == 3 and slow == [0, 1, 2], ids[:6]
    assert not list(tmp_path.iterdir()) or all(p.name.startswith(".") for p in tmp_path.iterdir())
