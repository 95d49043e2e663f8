"""docs/references.md is the citable place for the specs, the SoC facts, the reference implementations'
behaviours and the project's decisions: every anchor cited anywhere in the repository exists there, each section
names a public source, and the files that cite it no longer point at documents outside the repository."""
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
REFS = REPO / "docs" / "references.md"
# Every tracked kind of source and documentation file in the repository (build trees and caches excluded): each
# cites its sources by description and docs/references.md anchor, never research notes kept outside the repository.
SOURCE_DIRS = ["README.md", "docs", "python", "op_host", "op_kernel", "scripts", "tests", "cmake", ".ci",
               "CMakeLists.txt", "build.sh", "pyproject.toml"]
SKIP_PARTS = {"build", "__pycache__", ".hypothesis", ".pytest_cache"}
OUTSIDE = re.compile(r"FACTS ?\d+|\bFACTS\b|facts_\d|\bseed[ _-]?00\d|shared/seeds|\bissue \d+|issue #\d+")


def _files(rel):
    path = REPO / rel
    if path.is_file():
        return [path]
    return [p for p in path.rglob("*") if p.is_file() and not SKIP_PARTS.intersection(p.relative_to(REPO).parts)
            and (p.suffix in (".py", ".md", ".cpp", ".h", ".toml", ".j2", ".sh", ".txt", ".json", ".cmake")
                 or p.parent.name == ".ci")]


def anchors():
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', REFS.read_text()))


def test_every_cited_anchor_exists():
    known = anchors()
    assert {"specs", "onnx-qlinearmatmul", "atb-dynamicquant", "onednn-matmul-quantization",
            "zero-point-decomposition", "soc-facts", "reference-behaviours", "decisions"} <= known
    cited = {}
    for path in REPO.rglob("*"):
        if ".git" in path.parts or "build" in path.parts or not path.is_file() or path.suffix not in (
                ".py", ".md", ".cpp", ".h", ".toml", ".j2", ".sh"):
            continue
        for anchor in re.findall(r"references\.md#([a-z0-9-]+)", path.read_text(errors="replace")):
            cited.setdefault(anchor, path.relative_to(REPO))
    missing = {a: str(p) for a, p in cited.items() if a not in known}
    assert not missing, missing
    assert len(cited) >= 10


def test_sections_name_a_public_source():
    text = REFS.read_text()
    sections = re.split(r'\n<a id="', text)[1:]
    for sec in sections:
        anchor, body = sec.split('"', 1)
        if anchor in ("specs", "decisions", "reference-behaviours"):
            continue  # group headings
        if anchor.startswith("decision-"):
            continue  # our own decisions: they cite the sections they rest on
        assert re.search(r"Source|derived|arXiv|https?://|`hicann/|CANN", body), anchor


def test_no_file_cites_research_notes_outside_the_repository():
    hits = []
    for rel in SOURCE_DIRS:
        for path in _files(rel):
            if path in (REFS, pathlib.Path(__file__).resolve()):
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if OUTSIDE.search(line):
                    hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits)
