"""The README's generated parts match their sources."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_soc_table_matches_the_compiled_soc_table():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "soc_support_table.py"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_readme_setup_is_two_commands_and_ci_runs_them():
    text = (ROOT / "README.md").read_text()
    block = text.split("## Set-up", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands:
        assert command in ci


def test_readme_use_block_runs_as_written():
    # The first Python block of "## Use" is self-contained: pasted into a fresh interpreter it runs (cpu backend).
    text = (ROOT / "README.md").read_text()
    block = text.split("## Use", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # the package the tests import
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
