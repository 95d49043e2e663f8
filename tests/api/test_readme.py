"""The README's generated parts match their sources."""
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
